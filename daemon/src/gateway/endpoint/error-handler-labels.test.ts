import { describe, expect, it } from 'vitest';
import { freePort, send } from '../http/testing/test-gateway.js';
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

  it('a handler labelled "*" answers the endpoint\'s errors of every type; a handler naming the type wins over it', async () => {
    const backend = await startBackend((_req, res) => {
      res.writeHead(500).end('boom');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/star/**" {
    access_control = ["ba"]
    proxy {
      backend = "b"
      expected_status = [200]
    }
    error_handler "*" {
      response {
        status = 503
        body = "any"
      }
    }
    error_handler "unexpected_status" {
      response {
        status = 502
        body = "specific"
      }
    }
  }
  endpoint "/down" {
    proxy {
      url = "http://127.0.0.1:${await freePort()}/"
    }
    error_handler "*" {
      response {
        status = 503
        body = "any"
      }
    }
  }
}
definitions {
  backend "b" {
    origin = "${backend.origin}"
  }
  basic_auth "ba" {
    user     = "u"
    password = "a-long-enough-password"
  }
}
`);
    const auth = { authorization: `Basic ${Buffer.from('u:a-long-enough-password').toString('base64')}` };
    const answers = [await send(gw.url('/'), '/star/x', { headers: auth }), await send(gw.url('/'), '/down'), await send(gw.url('/'), '/star/x')];
    // An access control's refusal is its own error handlers' to answer, not the endpoint's "*".
    expect(answers.map((r) => [r.status, r.text.startsWith('<!DOCTYPE html>') ? 'page' : r.text])).toEqual([
      [502, 'specific'],
      [503, 'any'],
      [401, 'page'],
    ]);
    const types = gw.records.filter((r) => r.type === 'gateway_access').map((r) => r['error_type']);
    expect(types).toEqual(['unexpected_status', 'backend', 'basic_auth_credentials_missing']);
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
