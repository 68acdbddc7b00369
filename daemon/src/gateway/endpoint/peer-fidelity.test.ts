import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { accessLines, basic, startAccessGateway } from '../access/testing/access-gateway.js';
import { adminBehindCatchAll } from '../access/testing/endpoint-hcl.js';
import { startBackend, startEndpointGateway, type SeenRequest } from './testing/endpoint-gateway.js';

/**
 * Behaviours ported from the peer's integration tests (coupergateway/couper,
 * server/http_*_test.go and testdata/integration), where a user of the peer would notice a
 * difference.
 */
describe('peer fidelity: missing values are null all the way down', () => {
  it('indexes and traverses missing query parameters, headers, cookies and body fields as null, and drops a header set to null', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/v" {
    response {
      json_body = {
        q      = request.query.missing
        q0     = request.query.missing[0]
        qx     = request.query.missing[0].deeper
        h      = request.headers.missing
        hx     = request.headers.missing.deeper
        c      = request.cookies.missing
        cx     = request.cookies.missing[0]
        j      = request.json_body.a.b
        f      = request.form_body.missing[0]
        idx    = request.query["missing"][1]
        ctx    = request.context.none.sub
        br     = backend_responses.none.status
        def    = default(request.query.page[0], "1")
      }
    }
  }
  endpoint "/p" {
    proxy {
      backend = "b"
      set_request_headers = { x-set = request.headers.missing, x-kept = "yes" }
    }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`);
    const res = await send(gw.url('/'), '/v?other=1');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ q: null, q0: null, qx: null, h: null, hx: null, c: null, cx: null, j: null, f: null, idx: null, ctx: null, br: null, def: '1' });
    const proxied = await send(gw.url('/'), '/p');
    const seen = JSON.parse(proxied.text) as SeenRequest;
    expect(seen.headers['x-kept']).toBe('yes');
    expect(seen.headers).not.toHaveProperty('x-set');
  });
});

describe('peer fidelity: path parameters', () => {
  it('match with a trailing slash, never an empty segment', async () => {
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/p/{x}" {
    response {
      body = "x=\${request.path_params.x}"
    }
  }
  endpoint "/p/{x}/q/{y}" {
    response {
      body = "x=\${request.path_params.x} y=\${request.path_params.y}"
    }
  }
}
`);
    expect((await send(gw.url('/'), '/p/a')).text).toBe('x=a');
    expect((await send(gw.url('/'), '/p/a/')).text).toBe('x=a');
    expect((await send(gw.url('/'), '/p/a/q/b/')).text).toBe('x=a y=b');
    expect((await send(gw.url('/'), '/p/')).status).toBe(404);
    expect((await send(gw.url('/'), '/p//q/b')).status).toBe(404);
  });

  // The peer's router drops trailing slashes (its error_handler test asks "/default/" of endpoint "/default").
  it('route "/admin/" and "/%61dmin" as "/admin": a protected path is not reached through a catch-all by adding a slash or encoding it', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({
      'portico.hcl': adminBehindCatchAll(
        backend.origin,
        `  api {
    base_path = "/api"
    endpoint "/" {
      response { body = "api root" }
    }
  }
  spa {
    base_path = "/app"
    bootstrap_file = "www/index.html"
    paths = ["/"]
  }`,
      ),
      'www/index.html': '<h1>app</h1>',
    });
    // Nor by encoding it: the route is that of the decoded path, as the peer's (Go's URL.Path).
    for (const path of ['/admin', '/admin/', '/admin//', '/admin/?q=1', '/%61dmin', '/%61%64min/', '/admin%2F', '/admin%2f%2F']) {
      const res = await fetch(gw.url(path));
      expect([path, res.status, res.headers.get('www-authenticate')]).toEqual([path, 401, 'Basic realm="protected"']);
    }
    for (const path of ['/admin/', '/%61dmin']) {
      const passed = await fetch(gw.url(path), { headers: { authorization: basic('', 'pw') } });
      expect(passed.status).toBe(200);
    }
    // The backend gets the path as sent.
    expect(backend.seen.map((r) => r.url)).toEqual(['/admin/', '/%61dmin']);
    expect((await fetch(gw.url('/admin/x'))).status).toBe(200);
    for (const path of ['/api', '/api/', '/%61pi', '//api']) expect(await (await fetch(gw.url(path))).text()).toBe('api root');
    // Without a catch-all, a path under the api that routes nowhere gets the api's JSON error, however it is written.
    const apiOnly = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  api {
    base_path = "/api"
    endpoint "/" {
      response { body = "api root" }
    }
  }
}
`);
    for (const path of ['/api/nothing', '/%61pi/nothing', '//api//nothing', '/nothing']) {
      const missing = await send(apiOnly.url('/'), path);
      expect([path, missing.status, missing.headers['content-type']]).toEqual([path, 404, path === '/nothing' ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8']);
    }
    for (const path of ['/app', '/app/']) expect(await (await fetch(gw.url(path))).text()).toBe('<h1>app</h1>');
  });
});

describe('peer fidelity: proxy credentials', () => {
  it('does not forward the client\'s Authorization and Cookie headers unless a modifier sets them', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/plain" {
    proxy {
      backend = "b"
    }
  }
  endpoint "/kept" {
    proxy {
      backend = "b"
      set_request_headers = { authorization = request.headers.authorization, cookie = request.headers.cookie }
    }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`);
    const credentials = { authorization: 'Bearer client-token', cookie: 'session=abc' };
    const plain = JSON.parse((await send(gw.url('/'), '/plain', { headers: credentials })).text) as SeenRequest;
    expect(plain.headers).not.toHaveProperty('authorization');
    expect(plain.headers).not.toHaveProperty('cookie');
    const kept = JSON.parse((await send(gw.url('/'), '/kept', { headers: credentials })).text) as SeenRequest;
    expect(kept.headers['authorization']).toBe('Bearer client-token');
    expect(kept.headers['cookie']).toBe('session=abc');
  });
});

describe('peer fidelity: error handlers read the backend responses', () => {
  it('an unexpected_status handler echoes the status it got', async () => {
    const backend = await startBackend((_req, res) => {
      res.writeHead(418, { 'content-type': 'application/json' });
      res.end('{"why":"teapot"}');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/e" {
    request "r" {
      backend = "b"
      expected_status = [200]
    }
    response {
      body = "unreachable"
    }
    error_handler "unexpected_status" {
      response {
        status = 502
        json_body = { got = backend_responses.r.status, why = backend_responses.r.json_body.why }
      }
    }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`);
    const res = await send(gw.url('/'), '/e');
    expect(res.status).toBe(502);
    expect(JSON.parse(res.text)).toEqual({ got: 418, why: 'teapot' });
  });
});

describe('peer fidelity: request ids from a client header', () => {
  it('accepts [a-zA-Z0-9@=/+-]{12,64} and refuses anything else with 400 client request error', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/id" {
    proxy {
      backend = "b"
    }
  }
}
settings {
  request_id_accept_from_header = "X-Request-Id"
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`);
    const good = await send(gw.url('/'), '/id', { headers: { 'x-request-id': 'abc-DEF@1=2/3+4' } });
    expect(good.status).toBe(200);
    expect(good.headers['gateway-request-id']).toBe('abc-DEF@1=2/3+4');
    for (const bad of ['short', 'x'.repeat(65), 'has space in it!', 'semi;colon;value']) {
      const res = await send(gw.url('/'), '/id', { headers: { 'x-request-id': bad } });
      expect(res.status, bad).toBe(400);
      expect(res.headers['gateway-error'], bad).toBe('client request error');
    }
    expect(backend.seen).toHaveLength(1);
  });
});

describe('peer fidelity: Vary', () => {
  it('adds Vary: Accept-Encoding only where the body is long enough to be compressed', async () => {
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/short" {
    response {
      json_body = { ok = true }
    }
  }
  endpoint "/long" {
    response {
      json_body = { text = "${'x'.repeat(2000)}" }
    }
  }
}
`);
    const short = await send(gw.url('/'), '/short', { headers: { 'accept-encoding': 'gzip' } });
    expect(short.headers['vary']).toBeUndefined();
    expect(short.headers['content-encoding']).toBeUndefined();
    const long = await send(gw.url('/'), '/long', { headers: { 'accept-encoding': 'gzip' } });
    expect(long.headers['vary']).toBe('Accept-Encoding');
    expect(long.headers['content-encoding']).toBe('gzip');
    const identity = await send(gw.url('/'), '/long');
    expect(identity.headers['vary']).toBe('Accept-Encoding');
  });

  it('makes CORS preflight answers vary on Origin, Access-Control-Request-Method and Access-Control-Request-Headers', async () => {
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  cors {
    allowed_origins = ["*"]
  }
  endpoint "/c" {
    response {
      body = "ok"
    }
  }
}
`);
    const preflight = await send(gw.url('/'), '/c', { method: 'OPTIONS', headers: { origin: 'https://a.example', 'access-control-request-method': 'POST' } });
    expect(preflight.headers['vary']).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    const actual = await send(gw.url('/'), '/c', { headers: { origin: 'https://a.example' } });
    // Every origin gets the same `*`: the actual answer does not vary.
    expect(actual.headers['vary']).toBeUndefined();
  });
});

describe('peer fidelity: an error handler without a response of its own', () => {
  // The peer's modifier test "/teapot": a basic_auth handler with only set_response_status = 418 answers 418.
  it('applies its response modifiers and set_response_status to the rendered error', async () => {
    const notify = await startBackend();
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  endpoint "/teapot" {
    access_control = ["ba"]
    response {}
  }
  files {
    base_path = "/docs"
    document_root = "www"
    access_control = ["ba"]
  }
  endpoint "/noted" {
    proxy { url = "http://127.0.0.1:1/" }
    error_handler "backend" {
      add_response_headers = { x-noted = backend_responses.notify.status }
      request "notify" { url = "${notify.origin}/notify" }
    }
  }
  endpoint "/quiet" {
    proxy { url = "http://127.0.0.1:1/" }
    error_handler {
      set_response_status = 204
    }
  }
  endpoint "/broken" {
    proxy { url = "http://127.0.0.1:1/" }
    error_handler {
      set_response_headers = { x-echo = request.query.v[0] }
    }
  }
  endpoint "/nested" {
    proxy { url = "http://127.0.0.1:1/" }
    error_handler {
      set_response_status = 599
      proxy { url = "http://127.0.0.1:1/again" }
      error_handler "backend" {
        set_response_headers = { x-nested = "1" }
      }
    }
  }
}
definitions {
  basic_auth "ba" {
    password = "pw"
    error_handler {
      set_response_status = 418
    }
  }
}
`,
      'www/page.txt': 'page',
    });
    for (const path of ['/teapot', '/docs/page.txt']) {
      const refused = await fetch(gw.url(path));
      expect([path, refused.status]).toEqual([path, 418]);
      expect(refused.headers.get('www-authenticate')).toContain('Basic');
      expect(await refused.text()).toContain('access control error');
    }
    const passed = await fetch(gw.url('/docs/page.txt'), { headers: { authorization: basic('', 'pw') } });
    expect([passed.status, await passed.text()]).toEqual([200, 'page']);

    const noted = await fetch(gw.url('/noted'));
    expect([noted.status, noted.headers.get('x-noted')]).toEqual([502, '200']);
    expect(await noted.text()).toContain('backend error');
    expect(notify.seen.map((r) => r.url)).toEqual(['/notify']);

    const quiet = await fetch(gw.url('/quiet'));
    expect([quiet.status, quiet.headers.get('content-length'), await quiet.text()]).toEqual([204, null, '']);
    expect(gw.warnings).toEqual(['set_response_status = 204: the response body and Content-Length were removed']);

    // A header value that cannot be sent: the modifier fails, and the evaluation error is answered instead.
    const fine = await fetch(gw.url('/broken?v=ok'));
    expect([fine.status, fine.headers.get('x-echo')]).toEqual([502, 'ok']);
    const broken = await fetch(gw.url('/broken?v=a%0D%0Ab'));
    expect([broken.status, broken.headers.get('x-echo')]).toEqual([500, null]);
    expect(await broken.text()).toContain('expression evaluation error');
    expect(accessLines(gw).at(-1)?.['error_type']).toBe('evaluation');

    // The failing handler's own modifiers do not apply; its nested handler's do.
    const nested = await fetch(gw.url('/nested'));
    expect([nested.status, nested.headers.get('x-nested')]).toEqual([502, '1']);
  });
});
