import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { fixedHealth, startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';

describe('backend variables', () => {
  it('backend_requests.<label>, backend_responses.<label> and backends.<label>.health', async () => {
    const backend = await startBackend((req, res) => {
      res.writeHead(202, { 'content-type': 'application/json', 'x-reply': 'r', 'set-cookie': 'c=v; HttpOnly' });
      res.end(JSON.stringify({ got: req.body }));
    });
    const health = fixedHealth({
      b: { state: 'degraded', healthy: true, error: 'status 500', lastCheckAt: null, failures: 1, latencyMs: null, since: new Date(0).toISOString(), checked: true },
    });
    const gw = await startEndpointGateway(
      `
server {
  hosts = ["*:0"]
  endpoint "/vars" {
    request "r" {
      backend = "b"
      method = "POST"
      json_body = { a = 1 }
      headers = { cookie = "k=1", x-req = "q" }
      query_params = { p = "v" }
    }
    response {
      json_body = {
        req = {
          method = backend_requests.r.method
          header = backend_requests.r.headers.x-req
          cookie = backend_requests.r.cookies.k
          query = backend_requests.r.query.p
          body = backend_requests.r.json_body
          path = backend_requests.r.path
          port = backend_requests.r.port
          id = backend_requests.r.id == request.id
        }
        res = {
          status = backend_responses.r.status
          header = backend_responses.r.headers.x-reply
          cookie = backend_responses.r.cookies.c
          json = backend_responses.r.json_body
        }
        health = backends.b.health
        missing = backend_responses.nope
      }
    }
  }
}
definitions {
  backend "b" {
    origin = "${backend.origin}"
    path = "/x"
  }
}
`,
      { health },
    );
    const res = await send(gw.url('/'), '/vars');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      req: { method: 'POST', header: 'q', cookie: '1', query: ['v'], body: { a: 1 }, path: '/x', port: Number(new URL(backend.origin).port), id: true },
      res: { status: 202, header: 'r', cookie: 'v', json: { got: '{"a":1}' } },
      health: { state: 'degraded', healthy: true, error: 'status 500' },
      missing: null,
    });
  });

  it('backend_request and backend_response show the exchange as it was, not as later modifiers changed it', async () => {
    const backend = await startBackend((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-orig': 'from-backend', 'x-got': String(req.headers['x-client'] ?? ''), 'x-seen': String(req.headers['x-client-seen'] ?? '') });
      res.end('ok');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/snap" {
    proxy {
      backend = "b"
      remove_response_headers = ["x-orig"]
    }
  }
}
definitions {
  backend "b" {
    origin = "${backend.origin}"
    remove_request_headers = ["x-client"]
    set_request_headers = { x-client-seen = backend_request.headers.x-client }
    set_response_headers = { x-orig-seen = backend_response.headers.x-orig }
  }
}
`);
    const res = await send(gw.url('/'), '/snap', { headers: { 'x-client': 'c1' } });
    expect(res.status).toBe(200);
    // The backend block's request modifiers read the request before they removed x-client.
    expect(res.headers['x-got']).toBe('');
    expect(res.headers['x-seen']).toBe('c1');
    // The backend block's response modifiers read the answer before the proxy's removed x-orig.
    expect(res.headers['x-orig-seen']).toBe('from-backend');
    expect(res.headers['x-orig']).toBeUndefined();
  });

  it('backend_requests.<label> body, form_body and URL parts, and backend_responses.default of an unlabelled proxy', async () => {
    const backend = await startBackend((req, res) => {
      res.writeHead(req.url.startsWith('/default') ? 203 : 200, { 'content-type': 'text/plain' });
      res.end(req.method);
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/more" {
    proxy {
      url = "${backend.origin}/default/x"
    }
    request "f" {
      backend   = "b"
      method    = "POST"
      form_body = { name = "ann lee", n = "1" }
    }
    response {
      json_body = {
        default = [backend_responses.default.status, backend_responses.default.body, backend_requests.default.path]
        body     = backend_requests.f.body
        form     = backend_requests.f.form_body
        url      = backend_requests.f.url
        origin   = backend_requests.f.origin
        protocol = backend_requests.f.protocol
        host     = backend_requests.f.host
      }
    }
  }
}
definitions {
  backend "b" {
    origin = "${backend.origin}"
  }
}
`);
    const res = await send(gw.url('/'), '/more');
    expect(res.status).toBe(200);
    const { host, port } = new URL(backend.origin);
    expect(JSON.parse(res.text)).toEqual({
      default: [203, 'GET', '/default/x'],
      body: 'name=ann+lee&n=1',
      form: { name: ['ann lee'], n: ['1'] },
      url: `${backend.origin}/`,
      origin: backend.origin,
      protocol: 'http',
      host: host.replace(`:${port}`, ''),
    });
  });

  it('backend_requests.<label>.context and backend_request.context are the client request\'s context', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/ctx" {
    access_control = ["ba"]
    request "r" {
      backend = "b"
    }
    response {
      json_body = {
        user = backend_requests.r.context.ba.user
        same = backend_requests.r.context == request.context
        seen = backend_responses.r.json_body.headers.x-user
      }
    }
  }
}
definitions {
  backend "b" {
    origin               = "${backend.origin}"
    set_request_headers = { x-user = backend_request.context.ba.user }
  }
  basic_auth "ba" {
    user     = "ops"
    password = "a-long-enough-password"
  }
}
`);
    const res = await send(gw.url('/'), '/ctx', { headers: { authorization: `Basic ${Buffer.from('ops:a-long-enough-password').toString('base64')}` } });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ user: 'ops', same: true, seen: 'ops' });
  });
});
