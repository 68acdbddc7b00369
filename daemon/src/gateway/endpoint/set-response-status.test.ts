import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { problems } from '../config/testing/config-files.js';
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

describe('the status of an answer is a final one, 200 to 599', () => {
  it('a configuration that sets another does not load, and says which attribute and why', async () => {
    const found = await problems(`
server {
  endpoint "/switch" {
    set_response_status = 101
    response { body = "x" }
  }
  endpoint "/odd" {
    response {
      status = 42
    }
  }
}
`);
    expect(found).toEqual([
      expect.stringMatching(/portico\.hcl:4,.*"set_response_status".*must be from 200 to 599, got 101/),
      expect.stringMatching(/portico\.hcl:9,.*"status".*must be from 200 to 599, got 42/),
    ]);
  });

  it('one an expression gives is an evaluation error: a logged 500, never a 1xx, a 6xx or an unlogged failure', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/dynamic" {
    set_response_status = request.headers.x-status
    proxy { backend = "b" }
  }
  endpoint "/block" {
    response {
      status = request.headers.x-status
      body = "x"
    }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`);
    for (const path of ['/dynamic', '/block']) {
      for (const status of ['100', '101', '42', '600', '1000']) {
        const res = await send(gw.url('/'), path, { headers: { 'x-status': status } });
        expect([path, status, res.status, res.headers['gateway-error']]).toEqual([path, status, 500, 'expression evaluation error']);
      }
      const fine = await send(gw.url('/'), path, { headers: { 'x-status': '418' } });
      expect(fine.status).toBe(418);
    }
    const logged = gw.records.filter((r) => r.type === 'gateway_access');
    expect(logged).toHaveLength(12);
    expect(logged.filter((r) => r['status'] === 500).map((r) => r['message'])).toEqual(Array.from({ length: 10 }, () => expect.stringMatching(/must be from 200 to 599, got \d+/)));
  });
});
