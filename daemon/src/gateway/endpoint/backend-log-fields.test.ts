import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';

describe('custom_log_fields of a backend', () => {
  it('reads backend_request and backend_response when the backend line is written, even for a small body', async () => {
    const backend = await startBackend((_req, res) => {
      res.writeHead(201, { 'content-type': 'text/plain', 'x-upstream': 'u1' }).end('ok');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/small" {
    proxy {
      backend = "b"
    }
  }
}
definitions {
  backend "b" {
    origin = "${backend.origin}"
    custom_log_fields = {
      sent_path   = backend_request.path
      got_status  = backend_response.status
      got_header  = backend_response.headers.x-upstream
    }
  }
}
`);
    for (let i = 0; i < 5; i++) {
      const res = await send(gw.url('/'), '/small');
      expect(res.status).toBe(201);
      const id = res.headers['gateway-request-id'];
      await expect.poll(() => gw.records.find((r) => r.type === 'gateway_backend' && r['uid'] === id)?.['custom']).toEqual({ sent_path: '/small', got_status: 201, got_header: 'u1' });
    }
  });
});
