import { request } from 'node:http';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { basic, startAccessGateway } from './testing/access-gateway.js';

// As the peer (its allowed-methods handler sits inside the access-control handler): a method a
// protected route does not take is refused only once its access controls passed, so a client
// without credentials learns neither that the route exists nor which methods it takes.
describe('access controls before the method check', () => {
  const ok = basic('', 'secret');

  it('refuses a method of a protected endpoint with 401 first, 405 with its Allow once the credentials pass (general and plain routes)', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  access_control = ["ba"]
  endpoint "/report" {
    allowed_methods = ["GET"]
    response { body = "report" }
  }
  endpoint "/proxied" {
    allowed_methods = ["GET", "POST"]
    proxy { backend = "b" }
  }
  endpoint "/open" {
    disable_access_control = ["ba"]
    allowed_methods = ["GET"]
    response { body = "open" }
  }
}
definitions {
  basic_auth "ba" { password = "secret" }
  backend "b" { origin = "${backend.origin}" }
}
`,
    });
    const send = (path: string, method: string, headers: Record<string, string> = {}): Promise<Response> => fetch(gw.url(path), { method, headers });
    for (const path of ['/report', '/proxied']) {
      const anonymous = await send(path, 'DELETE');
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.headers.get('allow'), path).toBeNull();
      expect(anonymous.headers.get('www-authenticate'), path).toBe('Basic');
      const signedIn = await send(path, 'DELETE', { authorization: ok });
      expect(signedIn.status, path).toBe(405);
      expect(signedIn.headers.get('allow'), path).toBe(path === '/report' ? 'GET' : 'GET, POST');
    }
    // A method named by override: the same order; its denial is told only when the credentials passed.
    const override = { 'x-http-method-override': 'DELETE' };
    expect((await send('/proxied', 'POST', override)).status).toBe(401);
    expect((await send('/proxied', 'POST', { ...override, authorization: ok })).status).toBe(405);
    expect(gw.denials.filter((d) => d.endpoint === '/proxied').map((d) => d.type)).toEqual(['basic_auth_credentials_missing', 'basic_auth_credentials_missing', 'method_override']);
    // And in a form body (`_method`), read before the controls but checked after them.
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const formPost = (headers: Record<string, string>): Promise<Response> => fetch(gw.url('/proxied'), { method: 'POST', headers: { ...form, ...headers }, body: '_method=DELETE' });
    expect((await formPost({})).status).toBe(401);
    expect((await formPost({ authorization: ok })).status).toBe(405);
    expect(backend.seen).toEqual([]);
    // A route without access controls refuses at once, as before.
    const open = await send('/open', 'DELETE');
    expect(open.status).toBe(405);
    expect(open.headers.get('allow')).toBe('GET');
  });

  it('refuses other methods than GET and HEAD on protected files and spa blocks with 401 first', async () => {
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  files {
    base_path      = "/docs"
    document_root  = "htdocs"
    access_control = ["ba"]
  }
  spa {
    base_path      = "/app"
    bootstrap_file = "htdocs/index.html"
    paths          = ["/**"]
    access_control = ["ba"]
  }
}
definitions {
  basic_auth "ba" { password = "secret" }
}
`,
      'htdocs/index.html': '<!doctype html><title>app</title>',
      'htdocs/guide.txt': 'guide',
    });
    for (const path of ['/docs/guide.txt', '/app/settings']) {
      expect((await fetch(gw.url(path), { method: 'POST' })).status, path).toBe(401);
      const refused = await fetch(gw.url(path), { method: 'POST', headers: { authorization: ok } });
      expect(refused.status, path).toBe(405);
      expect(refused.headers.get('allow'), path).toBe('GET, HEAD');
      expect((await fetch(gw.url(path), { headers: { authorization: ok } })).status, path).toBe(200);
    }
  });
});

describe('access controls before the body is buffered', () => {
  const CONFIG = `
server {
  hosts = ["*:0"]
  endpoint "/echo" {
    access_control     = ["ba"]
    request_body_limit = "1KiB"
    response { json_body = { got = request.json_body } }
  }
  endpoint "/form-token" {
    access_control = ["tok"]
    response { body = "in" }
  }
}
definitions {
  basic_auth "ba" { password = "secret" }
  jwt "tok" {
    signature_algorithm = "HS256"
    key                 = "form-token-secret-0123456789abcdef"
    token_value         = request.form_body.token[0]
  }
}
`;

  /**
   * Sends the head and the first part of a chunked body; resolves with the status and body of the
   * answer. `rest` ends the body once `after` ms passed; without it the body never ends (and the
   * answer must come all the same; -1 if none came within 10 s).
   */
  function twoParts(url: string, headers: Record<string, string>, rest?: string): Promise<[number, string]> {
    return new Promise<[number, string]>((resolve, reject) => {
      const timer = setTimeout(() => {
        resolve([-1, '']);
        req.destroy();
      }, 10_000);
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          clearTimeout(timer);
          resolve([res.statusCode ?? 0, body]);
          req.destroy();
        });
      });
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
      req.write('{"partial": ');
      if (rest !== undefined) setTimeout(() => req.end(rest), 200);
    });
  }

  it('refuses a client without credentials without waiting for its body, or holding more of it than the limit', async () => {
    const gw = await startAccessGateway({ 'portico.hcl': CONFIG });
    // The body never ends: the 401 comes all the same (before, the gateway waited for the body).
    expect((await twoParts(gw.url('/echo'), {}))[0]).toBe(401);
    // With credentials the body is read whole, both parts.
    expect(await twoParts(gw.url('/echo'), { authorization: basic('', 'secret') }, '1}')).toEqual([200, '{"got":{"partial":1}}']);
    // Over the limit: 401 without credentials (before, 413), 413 with them.
    const big = JSON.stringify({ pad: 'x'.repeat(4096) });
    expect((await fetch(gw.url('/echo'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: big })).status).toBe(401);
    expect((await fetch(gw.url('/echo'), { method: 'POST', headers: { 'content-type': 'application/json', authorization: basic('', 'secret') }, body: big })).status).toBe(413);
  });

  it('still reads the body first where an access control takes its token from it', async () => {
    const gw = await startAccessGateway({ 'portico.hcl': CONFIG });
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1m').sign(new TextEncoder().encode('form-token-secret-0123456789abcdef'));
    const post = (body: string): Promise<Response> => fetch(gw.url('/form-token'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect((await post(`token=${token}`)).status).toBe(200);
    expect((await post('token=nope')).status).toBe(401);
  });
});
