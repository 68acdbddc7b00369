import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';

describe('stages', () => {
  it('blocks of one stage run in parallel: each answer waits until both requests arrived', async () => {
    const waiting: { url: string; res: ServerResponse }[] = [];
    const backend = await startBackend((req, res) => {
      waiting.push({ url: req.url, res });
      // The barrier: nobody is answered before both requests are in, so sequential sending would hang.
      if (waiting.length === 2) for (const w of waiting.splice(0)) w.res.end(w.url === '/a' ? 'x' : 'y');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/both" {
    request "a" { url = "${backend.origin}/a" }
    request "b" { url = "${backend.origin}/b" }
    response { body = "\${backend_responses.a.body}+\${backend_responses.b.body}" }
  }
}
`);
    const res = await send(gw.url('/'), '/both');
    expect(res.status).toBe(200);
    expect(res.text).toBe('x+y');
  });

  it('a block reading the response of another runs after it', async () => {
    const backend = await startBackend((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url === '/token' ? '{"token":"t-1"}' : JSON.stringify({ auth: req.headers['authorization'] }));
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/chain" {
    request "token" { url = "${backend.origin}/token" }
    proxy {
      url = "${backend.origin}/data"
      set_request_headers = { authorization = "Bearer \${backend_responses.token.json_body.token}" }
    }
  }
}
`);
    const res = await send(gw.url('/'), '/chain');
    expect(JSON.parse(res.text)).toEqual({ auth: 'Bearer t-1' });
    expect(backend.seen.map((s) => s.url)).toEqual(['/token', '/data']);
  });

  it('a failing block fails its dependents with a sequence error, which a sequence error_handler catches', async () => {
    const backend = await startBackend((req, res) => {
      res.writeHead(req.url === '/first' ? 500 : 200);
      res.end('ok');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/seq" {
    request "first" {
      url = "${backend.origin}/first"
      expected_status = [200]
    }
    proxy {
      url = "${backend.origin}/second?from=\${backend_responses.first.status}"
    }
    error_handler "sequence" {
      response {
        status = 503
        body = "sequence handled"
      }
    }
  }
  endpoint "/seq-unhandled" {
    request "first" {
      url = "${backend.origin}/first"
      expected_status = [200]
    }
    proxy {
      url = "${backend.origin}/second?from=\${backend_responses.first.status}"
    }
  }
}
`);
    const handled = await send(gw.url('/'), '/seq');
    expect(handled.status).toBe(503);
    expect(handled.text).toBe('sequence handled');
    const unhandled = await send(gw.url('/'), '/seq-unhandled');
    expect(unhandled.status).toBe(502);
    expect(backend.seen.map((s) => s.url)).toEqual(['/first', '/first']);
  });
});
