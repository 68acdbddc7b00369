import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { accessLines, basic, startAccessGateway } from './testing/access-gateway.js';
import { endpointHcl } from './testing/endpoint-hcl.js';

const SECRET = 'a-test-secret-of-enough-length-0123456789';
const hs256 = (claims: Record<string, unknown>): Promise<string> => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(SECRET));

/** Gaps the spec audit found (docs/gateway.md, "Audit"): blocks other than endpoints, inherited the way a user of the peer expects. */
describe('server, files and spa blocks: disable_access_control, custom_log_fields, cors', () => {
  it('disable_access_control on the server, a files and an spa block lifts exactly the named control', async () => {
    const gw = await startAccessGateway({
      'portico.hcl': `server {
  hosts = ["*:0"]
  access_control = ["a", "b"]
  disable_access_control = ["b"]
  endpoint "/e" {
    response {
      body = "e"
    }
  }
  files {
    base_path = "/static"
    document_root = "www"
    disable_access_control = ["a"]
    custom_log_fields = { block = "files" }
    cors {
      allowed_origins = ["https://files.example"]
    }
  }
  spa {
    base_path = "/app"
    bootstrap_file = "www/index.html"
    paths = ["/**"]
    disable_access_control = ["a"]
    custom_log_fields = { block = "spa" }
    cors {
      disable = true
    }
  }
  cors {
    allowed_origins = ["https://server.example"]
  }
  custom_log_fields = { block = "server", server = true }
}
definitions {
  basic_auth "a" {
    password = "pa"
  }
  basic_auth "b" {
    password = "pb"
  }
}
`,
      'www/index.html': '<!doctype html><title>app</title>',
      'www/site.css': 'body{}',
    });
    // The server's "b" is disabled: its endpoints need "a" only.
    expect((await fetch(gw.url('/e'))).status).toBe(401);
    expect((await fetch(gw.url('/e'), { headers: { authorization: basic('', 'pa') } })).status).toBe(200);
    // Files and spa disable "a" (and "b" is disabled above): open.
    const file = await fetch(gw.url('/static/site.css'), { headers: { origin: 'https://files.example' } });
    expect(file.status).toBe(200);
    // The files block's own cors replaces the server's.
    expect(file.headers.get('access-control-allow-origin')).toBe('https://files.example');
    await file.text();
    // The access line is written once the answer was sent: wait for it rather than race it.
    await expect.poll(() => accessLines(gw).find((l) => String(l['url']).endsWith('/static/site.css'))?.['custom']).toEqual({ block: 'files', server: true });
    const app = await fetch(gw.url('/app/deep/link'), { headers: { origin: 'https://server.example' } });
    expect(app.status).toBe(200);
    expect(await app.text()).toContain('<title>app</title>');
    // cors { disable = true } in the spa: no CORS headers there, though the server has cors.
    expect(app.headers.get('access-control-allow-origin')).toBeNull();
    await expect.poll(() => accessLines(gw).find((l) => String(l['url']).endsWith('/app/deep/link'))?.['custom']).toEqual({ block: 'spa', server: true });
  });
});

describe('api beta_required_permission and jwt custom_log_fields', () => {
  it('an api-level permission applies to endpoints without their own; an endpoint\'s own wins; the jwt\'s fields read its claims', async () => {
    const gw = await startAccessGateway({
      'portico.hcl': `server {
  hosts = ["*:0"]
  api {
    base_path = "/api"
    access_control = ["tok"]
    beta_required_permission = "read"
    endpoint "/items" {
      response {
        body = "items"
      }
    }
    endpoint "/admin" {
      beta_required_permission = "admin"
      response {
        body = "admin"
      }
    }
  }
}
definitions {
  jwt "tok" {
    signature_algorithm = "HS256"
    key = "${SECRET}"
    beta_permissions_claim = "scope"
    custom_log_fields = { subject = request.context.tok.sub }
  }
}
`,
    });
    const as = async (scope: string): Promise<Record<string, string>> => ({ authorization: `Bearer ${await hs256({ sub: `u-${scope || 'none'}`, scope })}` });
    expect((await fetch(gw.url('/api/items'), { headers: await as('read') })).status).toBe(200);
    expect(accessLines(gw).at(-1)?.['custom']).toEqual({ subject: 'u-read' });
    const none = await fetch(gw.url('/api/items'), { headers: await as('') });
    expect(none.status).toBe(403);
    expect(accessLines(gw).at(-1)?.['error_type']).toBe('beta_insufficient_permissions');
    expect((await fetch(gw.url('/api/admin'), { headers: await as('read') })).status).toBe(403);
    expect((await fetch(gw.url('/api/admin'), { headers: await as('admin') })).status).toBe(200);
  });
});

describe('jwt signing keys from files', () => {
  it('jwt_sign with an RS256 jwt block using signing_key_file, and an ES256 one with an inline signing_key, gives tokens the same block accepts; a profile takes key_file', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const oneLine = (pem: string): string => pem.trim().replace(/\n/g, '\\n');
    const gw = await startAccessGateway({
      'portico.hcl': `server {
  hosts = ["*:0"]
${endpointHcl('/sign', 'body = jwt_sign("tok", { sub = "signed" })')}
${endpointHcl('/profile', 'body = jwt_sign("prof", { sub = "p" })')}
${endpointHcl('/check', 'body = request.context.tok.sub', ['tok'])}
${endpointHcl('/es/sign', 'body = jwt_sign("es", { sub = "inline" })')}
${endpointHcl('/es/check', 'body = request.context.es.sub', ['es'])}
}
definitions {
  jwt "tok" {
    signature_algorithm = "RS256"
    key_file = "public.pem"
    signing_key_file = "private.pem"
    signing_ttl = "1m"
  }
  jwt "es" {
    signature_algorithm = "ES256"
    key = "${oneLine(ec.publicKey.export({ type: 'spki', format: 'pem' }) as string)}"
    signing_key = "${oneLine(ec.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string)}"
    signing_ttl = "1m"
  }
  jwt_signing_profile "prof" {
    signature_algorithm = "HS256"
    key_file = "hmac.key"
    ttl = "1m"
  }
}
`,
      'public.pem': rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string,
      'private.pem': rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      'hmac.key': SECRET,
    });
    const token = await (await fetch(gw.url('/sign'))).text();
    const checked = await fetch(gw.url('/check'), { headers: { authorization: `Bearer ${token}` } });
    expect(checked.status).toBe(200);
    expect(await checked.text()).toBe('signed');
    const esToken = await (await fetch(gw.url('/es/sign'))).text();
    const esChecked = await fetch(gw.url('/es/check'), { headers: { authorization: `Bearer ${esToken}` } });
    expect([esChecked.status, await esChecked.text()]).toEqual([200, 'inline']);
    const profileToken = await (await fetch(gw.url('/profile'))).text();
    const { jwtVerify } = await import('jose');
    expect((await jwtVerify(profileToken, new TextEncoder().encode(SECRET))).payload).toMatchObject({ sub: 'p' });
  });
});
