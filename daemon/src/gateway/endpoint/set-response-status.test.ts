import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';

describe('set_response_status', () => {
  it('endpoint then backend set the status; 204 drops body and Content-Length with a warning', async () => {
    const backend = await startBackend((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '4' });
      res.end('body');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/created" {
    set_response_status = 500
    proxy { backend = "b" }
  }
  endpoint "/empty" {
    set_response_status = 204
    response { body = "dropped" }
  }
}
definitions {
  backend "b" {
    origin = "${backend.origin}"
    set_response_status = 201
  }
}
`);
    const created = await send(gw.url('/'), '/created');
    expect(created.status).toBe(201);
    expect(created.text).toBe('body');
    const empty = await send(gw.url('/'), '/empty');
    expect(empty.status).toBe(204);
    expect(empty.text).toBe('');
    expect(empty.headers['content-length']).toBeUndefined();
    expect(gw.warnings).toEqual(['set_response_status = 204: the response body and Content-Length were removed']);
  });
});
