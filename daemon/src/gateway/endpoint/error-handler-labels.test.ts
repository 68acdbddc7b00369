import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway, type SeenRequest } from './testing/endpoint-gateway.js';

describe('error_handler labels and fields; request_id_backend_header', () => {
  it('one handler with several types answers each of them, and its custom_log_fields reach the access line', async () => {
    const backend = await startBackend((req, res) => {
      if (req.url === '/slow') setTimeout(() => res.end('late'), 500);
      else res.writeHead(500).end('boom');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  custom_log_fields = { level = "server" }
  endpoint "/e/**" {
    proxy {
      backend = "b"
      expected_status = [200]
    }
    error_handler "backend_timeout" "unexpected_status" {
      custom_log_fields = { handled = "yes" }
      response {
        status = 503
        body = "handled"
      }
    }
  }
}
definitions {
  backend "b" {
    origin = "${backend.origin}"
    path = "/**"
    timeout = "200ms"
  }
}
`);
    const failing = await send(gw.url('/'), '/e/fail');
    expect([failing.status, failing.text]).toEqual([503, 'handled']);
    const slow = await send(gw.url('/'), '/e/slow');
    expect([slow.status, slow.text]).toEqual([503, 'handled']);
    const line = gw.records.filter((r) => r.type === 'gateway_access').at(-1);
    expect(line).toMatchObject({ error_type: 'backend_timeout', custom: { level: 'server', handled: 'yes' } });
  });

  it('sends the request id to backends in request_id_backend_header, for proxy and request blocks', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/p" {
    proxy {
      backend = "b"
    }
  }
  endpoint "/r" {
    request {
      backend = "b"
    }
  }
}
settings {
  request_id_backend_header = "X-Req"
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`);
    for (const path of ['/p', '/r']) {
      const res = await send(gw.url('/'), path);
      const seen = JSON.parse(res.text) as SeenRequest;
      expect(seen.headers['x-req'], path).toBe(res.headers['gateway-request-id']);
      expect(seen.headers, path).not.toHaveProperty('gateway-request-id');
    }
  });
});
