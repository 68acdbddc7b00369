import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { routesView } from '../control/routes-view.js';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { accessLines, basic, startAccessGateway } from './testing/access-gateway.js';

// The peer's TestEndpoints_Protected404 (testdata/endpoints/07) and its catch-all endpoint: under
// a protected api's base path, a path no route takes answers only once the api's access
// controls pass, so its routes cannot be told from paths that do not exist without credentials.
describe('unrouted paths of a protected api', () => {
  const CONFIG = (origin: string): string => `
server "front" {
  hosts = ["*:0"]
  api "private" {
    base_path      = "/v1"
    access_control = ["ba"]
    endpoint "/users" {
      allowed_methods = ["GET"]
      proxy { backend = "b" }
    }
    endpoint "/users/{id}" {
      proxy { backend = "b" }
    }
  }
  api "public" {
    base_path = "/open"
    endpoint "/ping" {
      response { body = "pong" }
    }
  }
  api "proxied" {
    base_path      = "/all"
    access_control = ["ba"]
    endpoint "/**" {
      response { status = 204 }
    }
  }
  endpoint "/**" {
    proxy { backend = "b" }
  }
}
definitions {
  basic_auth "ba" {
    password = "secret"
    error_handler "basic_auth_credentials_missing" {
      set_response_headers = { x-handled-by = "ba" }
    }
  }
  backend "b" { origin = "${origin}" }
}
`;

  it('refuses them with the api controls, then answers 404 in the api format; routes and other apis are unchanged', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': CONFIG(backend.origin) });
    const get = (path: string, authorization?: string, method = 'GET'): Promise<Response> => fetch(gw.url(path), { method, headers: authorization ? { authorization } : {} });
    const ok = basic('', 'secret');

    // Without credentials a route and a path with no route look the same: 401, with the control's error handler.
    for (const path of ['/v1/users', '/v1/nothing-here', '/v1', '/v1/', '/v1/users/7/more']) {
      const res = await get(path);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate'), path).toBe('Basic');
      expect(res.headers.get('x-handled-by'), path).toBe('ba');
      expect(res.headers.get('content-type'), path).toContain('application/json');
    }
    expect((await get('/v1/nothing-here', basic('', 'wrong'))).status).toBe(401);
    // Nor its methods: a method the route does not take is refused after the controls (as the peer).
    expect((await get('/v1/nothing-here', undefined, 'DELETE')).status).toBe(401);
    const deleted = await get('/v1/users', undefined, 'DELETE');
    expect(deleted.status).toBe(401);
    expect(deleted.headers.get('allow')).toBeNull();
    const refused = await get('/v1/users', ok, 'DELETE');
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('GET');

    // With them: the route serves, the path with no route is the api's JSON 404.
    expect((await get('/v1/users', ok)).status).toBe(200);
    const missing = await get('/v1/nothing-here', ok);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/json');
    expect(await missing.json()).toMatchObject({ error: { status: 404, path: '/v1/nothing-here' } });

    // Before, a path under /v1 with no route of its own went to the open "/**" and so to the backend unguarded.
    expect(backend.seen.map((s) => s.url)).toEqual(['/v1/users']);

    // An api without access controls: its unknown paths go where they went (here the open "/**", to the backend).
    expect(await (await get('/open/ping')).text()).toBe('pong');
    expect((await get('/open/nope')).status).toBe(200);
    expect(backend.seen.map((s) => s.url)).toEqual(['/v1/users', '/open/nope']);
    // An api whose own "/**" takes every path needs no extra route.
    expect((await get('/all/anything', ok)).status).toBe(204);
    expect((await get('/all/anything')).status).toBe(401);

    expect(gw.denials.filter((d) => d.path === '/v1/nothing-here').map((d) => [d.type, d.label, d.server, d.endpoint])).toEqual([
      ['basic_auth_credentials_missing', 'ba', 'front', '/v1/**'],
      ['basic_auth', 'ba', 'front', '/v1/**'],
      ['basic_auth_credentials_missing', 'ba', 'front', '/v1/**'],
    ]);
    // Access lines (and so the metrics' labels) name the api and its catch-all pattern, bounded, not the path.
    const lines = accessLines(gw).filter((r) => (r['url'] as string).endsWith('/v1/nothing-here'));
    expect(lines.map((r) => [r['status'], r['api'], r['endpoint']])).toEqual([
      [401, 'private', '/**'],
      [401, 'private', '/**'],
      [401, 'private', '/**'],
      [404, 'private', '/**'],
    ]);
    expect(gw.denials.filter((d) => d.path === '/v1/users').map((d) => [d.method, d.type, d.endpoint])).toEqual([
      ['GET', 'basic_auth_credentials_missing', '/v1/users'],
      ['DELETE', 'basic_auth_credentials_missing', '/v1/users'],
    ]);
  });

  it('lists them in the Config view as the route "<base_path>/**" of kind unrouted with the api guards', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': CONFIG(backend.origin) });
    const rows = routesView(gw.config).routes.map((r) => [r.kind, r.path, r.guards.map((g) => g.label)]);
    expect(rows).toContainEqual(['unrouted', '/v1/**', ['ba']]);
    expect(rows.filter(([kind]) => kind === 'unrouted')).toHaveLength(1);
  });

  it('leaves them to the files and spa blocks that share the api base path, and to an api whose controls are all disabled', async () => {
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  access_control = ["ba"]
  files {
    document_root = "htdocs"
    disable_access_control = ["ba"]
  }
  api {
    base_path = "/"
    endpoint "/data" {
      response { body = "data" }
    }
  }
  api {
    base_path = "/free"
    disable_access_control = ["ba"]
    endpoint "/x" {
      response { body = "x" }
    }
  }
}
definitions {
  basic_auth "ba" { password = "secret" }
}
`,
      'htdocs/readme.txt': 'read me',
    });
    expect(await (await fetch(gw.url('/readme.txt'))).text()).toBe('read me');
    expect((await fetch(gw.url('/missing.txt'))).status).toBe(404);
    expect((await fetch(gw.url('/data'))).status).toBe(401);
    expect((await fetch(gw.url('/free/elsewhere'))).status).toBe(404);
    expect(routesView(gw.config).routes.filter((r) => r.kind === 'unrouted')).toEqual([]);
  });

  it('answers a CORS preflight on them as on the api routes, without credentials', async () => {
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  api {
    base_path      = "/v1"
    access_control = ["ba"]
    cors { allowed_origins = ["https://app.example"] }
    endpoint "/users" {
      response { body = "users" }
    }
  }
}
definitions {
  basic_auth "ba" { password = "secret" }
}
`,
    });
    const preflight = (path: string): Promise<Response> => fetch(gw.url(path), { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } });
    for (const path of ['/v1/users', '/v1/unknown']) {
      const res = await preflight(path);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('https://app.example');
    }
  });

  it('checks the api permission once the controls passed: 403 without it, 404 with it', async () => {
    const SECRET = 'unrouted-permission-secret-0123456789';
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  api {
    base_path                = "/reports"
    access_control           = ["tok"]
    beta_required_permission = "read"
    endpoint "/monthly" {
      response { body = "monthly" }
    }
  }
}
definitions {
  jwt "tok" {
    signature_algorithm    = "HS256"
    key                    = "${SECRET}"
    beta_permissions_claim = "scope"
  }
}
`,
    });
    const bearer = async (scope: string): Promise<Record<string, string>> => ({
      authorization: `Bearer ${await new SignJWT({ scope }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1m').sign(new TextEncoder().encode(SECRET))}`,
    });
    const status = async (path: string, headers: Record<string, string> = {}): Promise<number> => (await fetch(gw.url(path), { headers })).status;
    // Without the permission a route and a path with no route look the same to the token's holder too.
    const writer = await bearer('write');
    expect([await status('/reports/monthly', writer), await status('/reports/yearly', writer)]).toEqual([403, 403]);
    const reader = await bearer('read');
    expect([await status('/reports/monthly', reader), await status('/reports/yearly', reader)]).toEqual([200, 404]);
    expect([await status('/reports/monthly'), await status('/reports/yearly')]).toEqual([401, 401]);
    expect(gw.denials.filter((d) => d.path === '/reports/yearly').map((d) => d.type)).toEqual(['beta_insufficient_permissions', 'jwt_token_missing']);
  });

  it('gives an open api nested under a protected one the outer controls for its unknown paths, in its own error format', async () => {
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  api {
    base_path      = "/v1"
    access_control = ["ba"]
    endpoint "/private" {
      response { body = "private" }
    }
  }
  api {
    base_path  = "/v1/public"
    error_file = "public-error.json"
    endpoint "/hello" {
      response { body = "hello" }
    }
  }
}
definitions {
  basic_auth "ba" { password = "secret" }
}
`,
      'public-error.json': '{"public_error": {{.http_status}}}',
    });
    expect(await (await fetch(gw.url('/v1/public/hello'))).text()).toBe('hello');
    const anonymous = await fetch(gw.url('/v1/public/unknown'));
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ public_error: 401 });
    const signedIn = await fetch(gw.url('/v1/public/unknown'), { headers: { authorization: basic('', 'secret') } });
    expect(signedIn.status).toBe(404);
    expect(await signedIn.json()).toEqual({ public_error: 404 });
  });

  it('refuses a path named in X-Original-URL under a protected api from an open route', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': CONFIG(backend.origin) });
    const res = await fetch(gw.url('/elsewhere'), { headers: { 'x-original-url': '/v1/secret-report' } });
    expect(res.status).toBe(400);
    expect(backend.seen).toEqual([]);
  });
});
