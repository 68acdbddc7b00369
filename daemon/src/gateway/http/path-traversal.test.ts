import { describe, expect, it } from 'vitest';
import { startAccessGateway } from '../access/testing/access-gateway.js';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { send } from './testing/test-gateway.js';
import { checkRequestPath, segmentProblem } from './request-path.js';

/** Every form of escaping a route's prefix, as sent on the wire (never normalised by the client). */
const ESCAPES = ['/public/../admin/x', '/public/./../admin/x', '/public/%2e%2e/admin/x', '/public/%2E./admin/x', '/public/.%2E/admin/x', '/public/%2e/x', '/public/..%5cadmin', '/public/..\\admin', '/public/%5c..%5cadmin', '/public/x%00', '/public/%zz', '/public/a%2F..%2Fadmin/x', '/public/..%2Fadmin/x', '/public/%2e%2e%2fadmin', '/public/a%2F.%2Fb', '/public/..;/admin/x', '/public/.;/x', '/public/..;jsessionid=1/admin', '/public/..%3B/admin', '/public/%2e%2e;/admin', '/public/..%3bx=1/admin', '/public/%EF%BC%8E%EF%BC%8E/admin/x', '/public/%EF%BC%8E./admin/x', '/public/..%EF%BC%8Fadmin/x', '/public/%EF%BC%BCadmin', '/public/%EF%BC%8E%EF%BC%8E%EF%BC%9Bx/admin'];

describe('request paths', () => {
  it('accepts ordinary paths and refuses dot segments, backslashes, NUL and bad encodings', () => {
    for (const ok of ['/', '/a/b', '/a/b..c/', '/a/.well-known/x', '/a/%2Fencoded', '/a/%2F..b%2F', '/a/x%2F...%2Fy', '/a/%252e%252e/b', '/a/%252F..%252Fb', '/a/..b', '/x.y.z', '/a/b;..', '/a/x;v=1/..x', '/a/...;x', '/shop/cart;jsessionid=1', '/a/%EF%BD%81dmin', '/caf%C3%A9', '/a/%E2%80%A6/b', '/a/%EF%BC%8Ex']) expect(() => checkRequestPath(ok), ok).not.toThrow();
    for (const bad of ESCAPES) expect(() => checkRequestPath(bad), bad).toThrow(/request path contains/);
    expect(segmentProblem('/public/%EF%BC%8E%EF%BC%8E/admin')).toBe('a dot segment in "%EF%BC%8E%EF%BC%8E", written in full-width or other compatibility characters');
    expect(segmentProblem('/public/%EF%BC%BCadmin')).toBe('a backslash in "%EF%BC%BCadmin", written in full-width or other compatibility characters');
  });

  it('answers as the segment walk does for any path: the fast path for dotted paths changes no verdict and no message', () => {
    const verdict = (path: string): string | null => {
      try {
        checkRequestPath(path);
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    };
    const parts = ['/', '.', '..', '...', 'a', 'b.json', '%2e', '%', '%2F', '\\', '\0', '.a', 'a.', '//', ';', ';x=1', '%EF%BC%8E', '%EF%BC%8F'];
    let seed = 7;
    const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 20_000; i++) {
      let path = '/';
      for (let n = Math.floor(next() * 6); n > 0; n--) path += parts[Math.floor(next() * parts.length)];
      const expected = segmentProblem(path);
      const got = verdict(path);
      if (expected === null) expect(got, path).toBeNull();
      else expect(got, path).toContain(expected);
    }
  });

  it('never lets a path leave its route: endpoints, proxies with /**, backend path and path_prefix, files and spa', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  endpoint "/public/**" {
    proxy { backend = "open" }
  }
  endpoint "/mapped/**" {
    proxy {
      backend {
        origin = "${backend.origin}"
        path = "/inner/**"
        path_prefix = "/prefix"
      }
    }
  }
  endpoint "/user/{id}" {
    response { body = request.path_params.id }
  }
  endpoint "/admin/**" {
    access_control = ["ba"]
    proxy { backend = "open" }
  }
  files {
    base_path = "/files"
    document_root = "www"
  }
  spa {
    base_path = "/app"
    bootstrap_file = "www/index.html"
    paths = ["/**"]
  }
}
definitions {
  basic_auth "ba" { password = "pw" }
  backend "open" { origin = "${backend.origin}" }
}
`,
      'www/index.html': 'index',
      'secret.txt': 'top secret',
    });
    const base = gw.url('/');
    for (const prefix of ['/public', '/mapped', '/user', '/files', '/app']) {
      for (const escape of ESCAPES) {
        const path = escape.replace('/public', prefix);
        const res = await send(base, path);
        expect([path, res.status, res.headers['gateway-error']]).toEqual([path, 400, 'client request error']);
        expect(res.text).not.toContain('top secret');
      }
    }
    expect(backend.seen).toEqual([]);

    // Encoded twice is no dot segment: it reaches the backend exactly as sent, under the prefix.
    expect((await send(base, '/public/%252e%252e/admin/x')).status).toBe(200);
    expect((await send(base, '/mapped/%252e%252e/x')).status).toBe(200);
    expect((await send(base, '/public/a%2Fb/c')).status).toBe(200);
    expect(backend.seen.map((s) => s.url)).toEqual(['/public/%252e%252e/admin/x', '/prefix/inner/%252e%252e/x', '/public/a%2Fb/c']);
    // The guarded route stays guarded whatever the spelling.
    expect((await send(base, '/admin/x')).status).toBe(401);
    expect((await send(base, '/user/..')).status).toBe(400);
    expect((await send(base, '/user/a..b')).text).toBe('a..b');
    expect((await send(base, '/files/index.html')).text).toBe('index');
  });
});
