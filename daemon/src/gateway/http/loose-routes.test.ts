// A backend that compares paths without regard to letter case, drops `;params` from a segment,
// drops trailing dots and spaces from names or reads full-width letters as ASCII must not be
// reachable around a guarded route through a catch-all: such a path is refused with 400 where
// the route it would take that way has rules the route it took lacks.
import { describe, expect, it } from 'vitest';
import { accessLines, basic, startAccessGateway } from '../access/testing/access-gateway.js';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { send } from './testing/test-gateway.js';

const GUARDED = (origin: string): string => `
server {
  hosts = ["*:0"]
  endpoint "/admin/**" {
    access_control = ["ba"]
    proxy { backend = "open" }
  }
  endpoint "/users/{id}" {
    access_control = ["ba"]
    proxy { backend = "open" }
  }
  endpoint "/ro/**" {
    allowed_methods = ["GET"]
    proxy { backend = "open" }
  }
  endpoint "/API/**" {
    proxy { backend = "open" }
  }
  endpoint "/api/**" {
    access_control = ["ba"]
    proxy { backend = "open" }
  }
  files {
    base_path      = "/private"
    document_root  = "www"
    access_control = ["ba"]
  }
  endpoint "/**" {
    proxy { backend = "open" }
  }
}
definitions {
  basic_auth "ba" {
    user     = "u"
    password = "pw"
  }
  backend "open" { origin = "${origin}" }
}
`;

type Case = [method: string, path: string, auth: boolean, status: number];

describe('paths as a lenient backend compares them', () => {
  it('refuses a path that would reach a guarded route in other letter case, with ;params, trailing dots or spaces or in full-width letters, and serves every other', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': GUARDED(backend.origin), 'www/secret.txt': 'top secret' });
    const cases: Case[] = [
      ['GET', '/admin/x', false, 401],
      ['GET', '/admin/x', true, 200],
      ['GET', '/ADMIN/x', false, 400],
      ['GET', '/Admin/x', true, 400],
      ['GET', '/admin;x=1/users', false, 400],
      ['GET', '/admin;/users', false, 400],
      ['GET', '/%41dmin/x', false, 400],
      ['GET', '/admin%3Bx/users', false, 400],
      ['GET', '/Users/5', false, 400],
      ['GET', '/PRIVATE/secret.txt', false, 400],
      ['DELETE', '/RO/x', false, 400],
      // Windows drops trailing dots and spaces from names; IIS reads full-width letters (and `；`) as ASCII.
      ['GET', '/admin./x', false, 400],
      ['GET', '/admin%20/x', false, 400],
      ['GET', '/admin.%20./x', false, 400],
      ['GET', '/%EF%BD%81dmin/x', false, 400],
      ['GET', '/%EF%BC%A1%EF%BC%A4MIN/x', false, 400],
      ['GET', '/admin%EF%BC%9Bx/users', false, 400],
      // A route written in other case on purpose is the operator's own: it serves; a third spelling takes neither and is refused.
      ['GET', '/API/x', false, 200],
      ['GET', '/Api/x', false, 400],
      // Within the route taken, other case and ;params change nothing.
      ['GET', '/admin/X;v=1', false, 401],
      ['GET', '/users/5;v=1', true, 200],
      ['GET', '/static/Logo.PNG', false, 200],
      ['GET', '/shop;jsessionid=1/cart', false, 200],
      ['GET', '/RO/x', false, 200],
      ['DELETE', '/ro/x', false, 405],
      ['GET', '/caf%C3%A9/x', false, 200],
      ['GET', '/static/app.', false, 200],
      ['GET', '/static/%EF%BD%81.png', false, 200],
      ['GET', '/admin/x.', true, 200],
    ];
    const got: string[] = [];
    for (const [method, path, auth, status] of cases) {
      const res = await send(gw.url('/'), path, { method, headers: auth ? { authorization: basic('u', 'pw') } : {} });
      got.push(`${method} ${path}: ${res.status}`);
      if (status === 400) expect(res.headers['gateway-error'], path).toBe('client request error');
      expect(res.text, path).not.toContain('top secret');
    }
    expect(got).toEqual(cases.map(([method, path, , status]) => `${method} ${path}: ${status}`));
    // The refused ones never reached the backend; the served ones got the path as sent.
    expect(backend.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /admin/x', 'GET /API/x', 'GET /users/5;v=1', 'GET /static/Logo.PNG', 'GET /shop;jsessionid=1/cart', 'GET /RO/x', 'GET /caf%C3%A9/x', 'GET /static/app.', 'GET /static/%EF%BD%81.png', 'GET /admin/x.']);
    const refused = accessLines(gw).find((l) => String(l['url']).includes('/ADMIN/x'));
    expect(refused).toMatchObject({ status: 400, error_type: 'client_request', message: expect.stringContaining('"/admin/x"') });
    expect(String(refused?.['message'])).toContain('takes the route /admin/**');
    // Each refusal is told to the consoles as a denial by the path check, on the route taken.
    const escapes = gw.denials.filter((d) => d.type === 'path_escape');
    expect(escapes.map((d) => `${d.method} ${d.path}`)).toEqual(cases.filter(([, , , status]) => status === 400).map(([method, path]) => `${method} ${path}`));
    expect(escapes[0]).toMatchObject({ label: null, endpoint: '/**', path: '/ADMIN/x' });
    expect(escapes.find((d) => d.path === '/PRIVATE/secret.txt')?.endpoint).toBe('/**');
  });

  it('refuses a request whose X-Original-URL or X-Rewrite-URL names a path with rules the route it took lacks', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': GUARDED(backend.origin), 'www/secret.txt': 'top secret' });
    type HeaderCase = [path: string, header: string, value: string, auth: boolean, status: number];
    const cases: HeaderCase[] = [
      ['/public/x', 'x-original-url', '/admin/users', false, 400],
      ['/public/x', 'X-Rewrite-URL', '/admin/users?page=2', false, 400],
      ['/public/x', 'x-original-url', '/ADMIN/users', false, 400],
      ['/public/x', 'x-original-url', 'http://internal.example/admin/users', false, 400],
      ['/public/x', 'x-original-url', '/public/../admin/users', false, 400],
      ['/public/x', 'x-original-url', 'admin/users', false, 400],
      ['/public/x', 'x-original-url', '/private/secret.txt', false, 400],
      ['/ro/x', 'x-original-url', '/users/5', false, 400],
      ['/public/x', 'x-original-url', '/admin./users', false, 400],
      // Paths the route taken has no fewer rules than: served, the header passed on as sent.
      ['/public/x', 'x-original-url', '/static/app.js', false, 200],
      ['/admin/x', 'x-original-url', '/admin/y', true, 200],
      ['/admin/x', 'x-original-url', '/public/y', true, 200],
    ];
    const got: string[] = [];
    for (const [path, header, value, auth] of cases) {
      const res = await send(gw.url('/'), path, { headers: { [header]: value, ...(auth ? { authorization: basic('u', 'pw') } : {}) } });
      got.push(`${path} ${header}: ${value}: ${res.status}`);
      expect(res.text, value).not.toContain('top secret');
    }
    expect(got).toEqual(cases.map(([path, header, value, , status]) => `${path} ${header}: ${value}: ${status}`));
    expect(backend.seen.map((s) => `${s.url} ${String(s.headers['x-original-url'])}`)).toEqual(['/public/x /static/app.js', '/admin/x /admin/y', '/admin/x /public/y']);
    const messages = accessLines(gw).filter((l) => l['status'] === 400).map((l) => String(l['message']));
    expect(messages[0]).toContain('the x-original-url header names "/admin/users", which takes the route /admin/**');
    expect(messages[1]).toContain('the x-rewrite-url header names "/admin/users"');
    expect(messages[4]).toContain('the x-original-url header names a path with the dot segment');
    expect(messages[5]).toContain('the x-original-url header names no path');
    expect(gw.denials.filter((d) => d.type === 'path_escape')).toHaveLength(cases.filter(([, , , , status]) => status === 400).length);
  });

  it('leaves paths alone where no route has rules to get around', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  endpoint "/admin/**" {
    proxy { backend = "open" }
  }
  endpoint "/**" {
    proxy { backend = "open" }
  }
}
definitions {
  backend "open" { origin = "${backend.origin}" }
}
`,
    });
    for (const path of ['/ADMIN/x', '/admin;x/y', '/Admin/x']) expect((await send(gw.url('/'), path)).status, path).toBe(200);
    expect((await send(gw.url('/'), '/x', { headers: { 'x-original-url': '/admin/y' } })).status).toBe(200);
    expect(backend.seen.map((s) => s.url)).toEqual(['/ADMIN/x', '/admin;x/y', '/Admin/x', '/x']);
  });
});
