import { execFileSync } from 'node:child_process';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { accessLines, basic, startAccessGateway } from './testing/access-gateway.js';

const openssl = (...args: string[]): string => execFileSync('openssl', ['passwd', ...args], { encoding: 'utf8' }).trim();

describe('basic_auth through the gateway', () => {
  // The peer's integration config 03: access controls inherited from server to api and
  // endpoint, disabled per block, an endpoint adding its own.
  it('inherits, disables and adds access controls per block (peer scenario 03)', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({
      'portico.hcl': `
server "acs" {
  hosts = ["*:0"]
  access_control = ["ba1"]
  api {
    base_path = "/v1"
    disable_access_control = ["ba1"]
    endpoint "/**" {
      proxy { backend = "test" }
    }
  }
  api {
    base_path = "/v2"
    access_control = ["ba2"]
    endpoint "/**" {
      proxy { backend = "test" }
    }
  }
  api {
    base_path = "/v3"
    access_control = ["ba2"]
    endpoint "/**" {
      access_control = ["ba3"]
      disable_access_control = ["ba1", "ba2", "ba3"]
      proxy { backend = "test" }
    }
  }
  endpoint "/status" {
    disable_access_control = ["ba1"]
    proxy { backend = "test" }
  }
  endpoint "/superadmin" {
    access_control = ["ba4"]
    proxy { backend = "test" }
  }
}
definitions {
  basic_auth "ba1" { password = "asdf" }
  basic_auth "ba2" { password = "asdf" }
  basic_auth "ba3" { password = "asdf" }
  basic_auth "ba4" { password = "qwer" }
  backend "test" { origin = "${backend.origin}" }
}
`,
    });
    const get = (path: string, authorization?: string): Promise<Response> => fetch(gw.url(path), { headers: authorization ? { authorization } : {} });
    expect((await get('/v1/anything')).status).toBe(200);
    expect((await get('/v3/anything')).status).toBe(200);
    expect((await get('/status')).status).toBe(200);

    const missing = await get('/v2/anything');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Basic');
    expect(missing.headers.get('gateway-error')).toBe('access control error');
    expect(await missing.json()).toMatchObject({ error: { status: 401, message: 'access control error' } });
    expect((await get('/v2/anything', basic('', 'wrong'))).status).toBe(401);
    expect((await get('/v2/anything', basic('', 'asdf'))).status).toBe(200);

    // ba1 (server) and ba4 (endpoint) both apply: each password must match its control.
    const superadmin = await get('/superadmin', basic('', 'asdf'));
    expect(superadmin.status).toBe(401);
    expect(superadmin.headers.get('content-type')).toContain('text/html');
    expect(accessLines(gw).at(-1)).toMatchObject({ error_type: 'basic_auth', status: 401 });
    expect(backend.seen.map((s) => s.url)).toEqual(['/v1/anything', '/v3/anything', '/status', '/v2/anything']);
    expect(gw.denials.map((d) => [d.type, d.label, d.endpoint])).toEqual([
      ['basic_auth_credentials_missing', 'ba1', '/v2/**'],
      ['basic_auth', 'ba1', '/v2/**'],
      ['basic_auth', 'ba4', '/superadmin'],
    ]);
  });

  it('checks user/password when the user matches, else the htpasswd file (apr1, md5, bcrypt from real tools)', async () => {
    const bcryptHash = bcrypt.hashSync('carol-pw', 5).replace(/^\$2b\$/, '$2y$');
    const htpasswd = ['# made by openssl and bcrypt', `alice:${openssl('-apr1', 'alice-pw')}`, `bob:${openssl('-1', 'bob-pw')}`, `carol:${bcryptHash}`, `admin:${openssl('-apr1', 'file-admin-pw')}`, ''].join('\n');
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  endpoint "/who" {
    access_control = ["users"]
    response {
      json_body = { user = request.context.users.user }
    }
  }
}
definitions {
  basic_auth "users" {
    user          = "admin"
    password      = "inline-admin-pw"
    htpasswd_file = "users.htpasswd"
    realm         = "Portico \\"ops\\""
  }
}
`,
      'users.htpasswd': htpasswd,
    });
    const who = async (user: string, password: string): Promise<[number, unknown]> => {
      const res = await fetch(gw.url('/who'), { headers: { authorization: basic(user, password) } });
      return [res.status, res.status === 200 ? await res.json() : res.headers.get('www-authenticate')];
    };
    expect(await who('alice', 'alice-pw')).toEqual([200, { user: 'alice' }]);
    expect(await who('bob', 'bob-pw')).toEqual([200, { user: 'bob' }]);
    expect(await who('carol', 'carol-pw')).toEqual([200, { user: 'carol' }]);
    expect(await who('alice', 'bob-pw')).toEqual([401, 'Basic realm="Portico \\"ops\\""']);
    expect(await who('nobody', 'x')).toEqual([401, 'Basic realm="Portico \\"ops\\""']);
    // Names of what every object has are users like any other: not in the file, so refused.
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) expect(await who(name, 'x'), name).toEqual([401, 'Basic realm="Portico \\"ops\\""']);
    // The precedence rule: the configured user is checked against its password only.
    expect(await who('admin', 'inline-admin-pw')).toEqual([200, { user: 'admin' }]);
    expect(await who('admin', 'file-admin-pw')).toEqual([401, 'Basic realm="Portico \\"ops\\""']);
    const lines = accessLines(gw);
    expect(lines[0]).toMatchObject({ auth_user: 'alice', status: 200 });
    expect(JSON.stringify(gw.records)).not.toContain('alice-pw');
  });

  it("hands failures to the control's error_handler, which answers without the challenge", async () => {
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  api {
    endpoint "/secret" {
      access_control = ["ba"]
      response { body = "secret" }
    }
  }
}
definitions {
  basic_auth "ba" {
    password = "pw"
    realm = "r"
    error_handler "basic_auth_credentials_missing" {
      response {
        status = 418
        headers = { x-handled = "missing" }
        body = "log in first"
      }
    }
  }
}
`,
    });
    const missing = await fetch(gw.url('/secret'));
    expect([missing.status, missing.headers.get('x-handled'), missing.headers.get('www-authenticate'), await missing.text()]).toEqual([418, 'missing', null, 'log in first']);
    // Wrong credentials are another type: unhandled, so the default error with its challenge.
    const wrong = await fetch(gw.url('/secret'), { headers: { authorization: basic('', 'nope') } });
    expect([wrong.status, wrong.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="r"']);
    expect(gw.denials.map((d) => d.type)).toEqual(['basic_auth_credentials_missing', 'basic_auth']);
  });

  it('guards files and spa blocks, and an error handler may answer for them', async () => {
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  files {
    base_path = "/docs"
    document_root = "www"
    access_control = ["ba"]
  }
  spa {
    base_path = "/app"
    bootstrap_file = "www/index.html"
    paths = ["/**"]
    access_control = ["handled"]
  }
}
definitions {
  basic_auth "ba" { password = "pw" }
  basic_auth "handled" {
    password = "pw"
    error_handler {
      response {
        status = 302
        headers = { location = "/login" }
      }
    }
  }
}
`,
      'www/index.html': '<h1>index</h1>',
      'www/page.txt': 'page',
    });
    expect((await fetch(gw.url('/docs/page.txt'))).status).toBe(401);
    // A missing file needs the credentials too: the block answers only those who pass.
    expect((await fetch(gw.url('/docs/missing.txt'))).status).toBe(401);
    const ok = await fetch(gw.url('/docs/page.txt'), { headers: { authorization: basic('', 'pw') } });
    expect([ok.status, await ok.text()]).toEqual([200, 'page']);
    const redirect = await fetch(gw.url('/app/some/route'), { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([302, '/login']);
    const app = await fetch(gw.url('/app/some/route'), { headers: { authorization: basic('', 'pw') } });
    expect([app.status, await app.text()]).toEqual([200, '<h1>index</h1>']);
    // basic_auth answers are not marked private (only jwt's are).
    expect(app.headers.get('cache-control') ?? '').not.toContain('private');
    // The consoles are told of each refusal with the route as their Config view names it.
    expect(gw.denials.map((d) => [d.label, d.endpoint, d.path])).toEqual([
      ['ba', '/docs/**', '/docs/page.txt'],
      ['ba', '/docs/**', '/docs/missing.txt'],
      ['handled', '/app/**', '/app/some/route'],
    ]);
  });
});
