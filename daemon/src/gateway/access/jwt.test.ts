import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, jwtVerify, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { accessLines, startAccessGateway } from './testing/access-gateway.js';

const SECRET = 'a-test-secret-of-enough-length-0123456789';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsa2 = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pem = (key: import('node:crypto').KeyObject): string => key.export({ type: 'spki', format: 'pem' }) as string;
const now = (): number => Math.floor(Date.now() / 1000);

function hs256(claims: Record<string, unknown>, secret = SECRET): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((c) => c()));

/** A JWKS server on loopback whose key set the test replaces (a rejected one answers 503); counts its requests. */
async function jwksServer(keys: () => Promise<unknown[]>, delayMs = 0): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests += 1;
    void keys().then(
      (list) =>
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ keys: list }));
        }, delayMs),
      () => res.writeHead(503).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, requests: () => requests };
}

const HS_CONFIG = (extra = '', endpointExtra = ''): string => `
server {
  hosts = ["*:0"]
  api {
    endpoint "/me" {
      access_control = ["tok"]
      ${endpointExtra}
      response {
        headers = { cache-control = "max-age=60" }
        json_body = { sub = request.context.tok.sub, ctx = request.context }
      }
    }
  }
}
definitions {
  jwt "tok" {
    signature_algorithm = "HS256"
    key = "${SECRET}"
    ${extra}
  }
}
`;

/** `/p` behind the jwt "idp" whose key set is at `url`; `jwt` adds to the block, `definitions` after it. */
const JWKS_CONFIG = (url: string, jwt: string, definitions = ''): string => `
server {
  hosts = ["*:0"]
  endpoint "/p" {
    access_control = ["idp"]
    response { body = request.context.idp.sub }
  }
}
definitions {
  jwt "idp" {
    jwks_url = "${url}"
    ${jwt}
  }
${definitions}}
`;

describe('jwt through the gateway', () => {
  it('reads a bearer token, grants its claims and marks the answer private', async () => {
    const gw = await startAccessGateway({ 'portico.hcl': HS_CONFIG() });
    const res = await fetch(gw.url('/me'), { headers: { authorization: `Bearer ${await hs256({ sub: 'ada', exp: now() + 60 })}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('max-age=60, private');
    expect(await res.json()).toMatchObject({ sub: 'ada', ctx: { tok: { sub: 'ada' }, beta_granted_permissions: [], beta_required_permission: '' } });
    expect(accessLines(gw)[0]).toMatchObject({ auth_user: 'ada' });
  });

  it('answers missing, expired, tampered and foreign tokens with their types and the Bearer challenge', async () => {
    const gw = await startAccessGateway({ 'portico.hcl': HS_CONFIG() });
    const call = async (authorization?: string): Promise<[number, string | null, string | null]> => {
      const res = await fetch(gw.url('/me'), { headers: authorization === undefined ? {} : { authorization } });
      return [res.status, res.headers.get('www-authenticate'), res.headers.get('cache-control')];
    };
    const valid = await hs256({ sub: 'ada', exp: now() + 60 });
    const [h, p, s] = valid.split('.') as [string, string, string];
    const tampered = `${h}.${Buffer.from(JSON.stringify({ sub: 'root', exp: now() + 60 })).toString('base64url')}.${s}`;
    expect(p).not.toBe('');
    expect(await call()).toEqual([401, 'Bearer', 'no-store']);
    expect(await call(`Basic ${Buffer.from('a:b').toString('base64')}`)).toEqual([401, 'Bearer', 'no-store']);
    expect(await call(`Bearer ${await hs256({ sub: 'ada', exp: now() - 120 })}`)).toEqual([401, 'Bearer error="invalid_token"', 'no-store']);
    expect(await call(`Bearer ${tampered}`)).toEqual([401, 'Bearer error="invalid_token"', 'no-store']);
    expect(await call(`Bearer ${await hs256({ sub: 'ada' }, 'another-secret-another-secret-123')}`)).toEqual([401, 'Bearer error="invalid_token"', 'no-store']);
    expect(await call('Bearer not.a.jwt')).toEqual([401, 'Bearer error="invalid_token"', 'no-store']);
    expect(accessLines(gw).map((l) => l['error_type'])).toEqual(['jwt_token_missing', 'jwt_token_missing', 'jwt_token_expired', 'jwt_token_invalid', 'jwt_token_invalid', 'jwt_token_invalid']);
    expect(gw.denials.map((d) => d.label)).toEqual(['tok', 'tok', 'tok', 'tok', 'tok', 'tok']);
    expect(JSON.stringify(gw.records)).not.toContain(valid.slice(-20));
  });

  it('answers a CORS preflight without credentials, and the actual request only with a token', async () => {
    const gw = await startAccessGateway({ 'portico.hcl': HS_CONFIG().replace('api {', 'api {\n    cors {\n      allowed_origins = ["https://app.example"]\n    }') });
    const preflight = await fetch(gw.url('/me'), { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, 'https://app.example']);
    const actual = await fetch(gw.url('/me'), { headers: { origin: 'https://app.example' } });
    expect([actual.status, actual.headers.get('access-control-allow-origin')]).toEqual([401, 'https://app.example']);
  });

  it('refuses a token that expires after it was verified (a remembered signature does not extend it)', async () => {
    const gw = await startAccessGateway({ 'portico.hcl': HS_CONFIG() });
    const token = await hs256({ sub: 'short', exp: now() + 1 });
    expect((await fetch(gw.url('/me'), { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3100));
    const late = await fetch(gw.url('/me'), { headers: { authorization: `Bearer ${token}` } });
    expect([late.status, late.headers.get('www-authenticate')]).toEqual([401, 'Bearer error="invalid_token"']);
    expect(accessLines(gw).at(-1)).toMatchObject({ error_type: 'jwt_token_expired' });
  });

  it('reads the token from a cookie, another header, or token_value; only Authorization gets a challenge', async () => {
    const token = await hs256({ sub: 'c', exp: now() + 60 });
    for (const [source, init] of [
      ['cookie = "session"', { headers: { cookie: `a=1; session=${token}` } }],
      ['header = "X-Token"', { headers: { 'x-token': token } }],
      ['token_value = request.query.t[0]', { query: `?t=${token}` }],
    ] as const) {
      const gw = await startAccessGateway({ 'portico.hcl': HS_CONFIG(source) });
      const query = 'query' in init ? init.query : '';
      const ok = await fetch(gw.url(`/me${query}`), 'headers' in init ? { headers: init.headers } : {});
      expect([source, ok.status]).toEqual([source, 200]);
      const missing = await fetch(gw.url('/me'), { headers: { authorization: `Bearer ${token}` } });
      expect([source, missing.status, missing.headers.get('www-authenticate')]).toEqual([source, 401, null]);
    }
  });

  it('checks claims (evaluated per request) and required claims', async () => {
    const gw = await startAccessGateway({ 'portico.hcl': HS_CONFIG('claims = { iss = "portico", sub = request.headers.x-user }\n    required_claims = ["role"]') });
    const call = async (claims: Record<string, unknown>, user: string): Promise<number> =>
      (await fetch(gw.url('/me'), { headers: { authorization: `Bearer ${await hs256({ exp: now() + 60, ...claims })}`, 'x-user': user } })).status;
    expect(await call({ iss: 'portico', sub: 'ada', role: 'x' }, 'ada')).toBe(200);
    expect(await call({ iss: 'portico', sub: 'ada', role: 'x' }, 'bob')).toBe(401);
    expect(await call({ iss: 'elsewhere', sub: 'ada', role: 'x' }, 'ada')).toBe(401);
    expect(await call({ iss: 'portico', sub: 'ada' }, 'ada')).toBe(401);
    expect(accessLines(gw).map((l) => l['error_type'] ?? null)).toEqual([null, 'jwt_token_invalid', 'jwt_token_invalid', 'jwt_token_invalid']);
    // A required claim named like what every object has must be in the token itself.
    const own = await startAccessGateway({ 'portico.hcl': HS_CONFIG('required_claims = ["constructor"]') });
    const ownCall = async (claims: Record<string, unknown>): Promise<number> => (await fetch(own.url('/me'), { headers: { authorization: `Bearer ${await hs256({ exp: now() + 60, sub: 's', ...claims })}` } })).status;
    expect(await ownCall({})).toBe(401);
    expect(await ownCall({ constructor: 'c' })).toBe(200);
  });

  it('verifies RS256 with a key file and ES256 with an inline key; disable_private_caching keeps the answer public', async () => {
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  endpoint "/rs" {
    access_control = ["rs"]
    response { body = "rs" }
  }
  endpoint "/es" {
    access_control = ["es"]
    response { body = "es" }
  }
}
definitions {
  jwt "rs" {
    signature_algorithm = "RS256"
    key_file = "rs.pem"
  }
  jwt "es" {
    signature_algorithm = "ES256"
    key = ${JSON.stringify(pem(ec.publicKey))}
    disable_private_caching = true
  }
}
`,
      'rs.pem': pem(rsa.publicKey),
    });
    const rs = await new SignJWT({ sub: 'r' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('1m').sign(rsa.privateKey);
    const es = await new SignJWT({ sub: 'e' }).setProtectedHeader({ alg: 'ES256' }).setExpirationTime('1m').sign(ec.privateKey);
    const rsRes = await fetch(gw.url('/rs'), { headers: { authorization: `Bearer ${rs}` } });
    expect([rsRes.status, rsRes.headers.get('cache-control')]).toEqual([200, 'private']);
    const esRes = await fetch(gw.url('/es'), { headers: { authorization: `Bearer ${es}` } });
    expect([esRes.status, esRes.headers.get('cache-control')]).toEqual([200, null]);
    expect((await fetch(gw.url('/rs'), { headers: { authorization: `Bearer ${es}` } })).status).toBe(401);
    // The RS256 public key used as an HS256 secret must not verify.
    const confused = await hs256({ sub: 'x', exp: now() + 60 }, pem(rsa.publicKey));
    expect((await fetch(gw.url('/rs'), { headers: { authorization: `Bearer ${confused}` } })).status).toBe(401);
  });

  it('verifies each of the nine algorithms with its own key, and refuses a token of another algorithm of the same family', async () => {
    const ecKeys = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' } as const;
    const rsaKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keys = new Map<string, { sign: import('node:crypto').KeyObject | Uint8Array; verify: string }>();
    for (const alg of ['HS256', 'HS384', 'HS512']) {
      const secret = `${SECRET}-${alg}-and-some-more-bytes-for-the-longer-hashes`;
      keys.set(alg, { sign: new TextEncoder().encode(secret), verify: secret });
    }
    for (const alg of ['RS256', 'RS384', 'RS512']) keys.set(alg, { sign: rsaKey.privateKey, verify: pem(rsaKey.publicKey) });
    for (const [alg, curve] of Object.entries(ecKeys)) {
      const pair = generateKeyPairSync('ec', { namedCurve: curve });
      keys.set(alg, { sign: pair.privateKey, verify: pem(pair.publicKey) });
    }
    const algs = [...keys.keys()];
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
${algs.map((alg) => `  endpoint "/${alg}" {
    access_control = ["${alg}"]
    response { body = request.context.${alg}.sub }
  }`).join('\n')}
}
definitions {
${algs.map((alg) => `  jwt "${alg}" {
    signature_algorithm = "${alg}"
    key = ${JSON.stringify(keys.get(alg)!.verify)}
  }`).join('\n')}
}
`,
    });
    const token = (alg: string, signWith = alg): Promise<string> => new SignJWT({ sub: `${alg} user` }).setProtectedHeader({ alg }).setExpirationTime('1m').sign(keys.get(signWith)!.sign);
    const call = async (path: string, jwt: string): Promise<[number, string]> => {
      const res = await fetch(gw.url(`/${path}`), { headers: { authorization: `Bearer ${jwt}` } });
      return [res.status, res.status === 200 ? await res.text() : ''];
    };
    for (const alg of algs) expect(await call(alg, await token(alg)), alg).toEqual([200, `${alg} user`]);
    // The same key family, another hash: RS384 with the RS256 block's key, HS512 with HS256's secret.
    expect(await call('RS256', await token('RS384', 'RS256'))).toEqual([401, '']);
    expect(await call('RS512', await token('RS256', 'RS512'))).toEqual([401, '']);
    expect(await call('HS256', await token('HS512', 'HS256'))).toEqual([401, '']);
    // An ES384 token (its own key) at the ES256 block: the curve and the algorithm differ.
    expect(await call('ES256', await token('ES384'))).toEqual([401, '']);
  });

  it('keeps a key set for jwks_ttl and serves it jwks_max_stale longer while the key set is down', async () => {
    const jwk = { ...(await exportJWK(rsa.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    let down = false;
    const idp = await jwksServer(async () => (down ? Promise.reject(new Error('down')) : [jwk]));
    const gw = await startAccessGateway({ 'portico.hcl': JWKS_CONFIG(idp.url, 'jwks_ttl = "1s"\n    jwks_max_stale = "1s"') });
    const token = await new SignJWT({ sub: 'one' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setExpirationTime('1m').sign(rsa.privateKey);
    const status = async (): Promise<number> => (await fetch(gw.url('/p'), { headers: { authorization: `Bearer ${token}` } })).status;
    expect(await status()).toBe(200);
    const fetchedAt = Date.now();
    expect(await status()).toBe(200);
    expect(idp.requests()).toBe(1);
    down = true;
    await new Promise((resolve) => setTimeout(resolve, 1200));
    // Past jwks_ttl: fetched again, which fails; the kept set still verifies.
    expect(await status()).toBe(200);
    expect(idp.requests()).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, fetchedAt + 2300 - Date.now())));
    // Past jwks_ttl + jwks_max_stale: no key set to verify with.
    const refused = await fetch(gw.url('/p'), { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(401);
    expect(accessLines(gw).at(-1)).toMatchObject({ status: refused.status, error_type: 'jwt', message: expect.stringContaining('no usable key set') });
  });

  it('fetches the key set once for concurrent requests, follows a rotation by kid, and goes through a configured backend', async () => {
    let keys = [{ ...(await exportJWK(rsa.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }];
    const idp = await jwksServer(async () => keys, 100);
    const gw = await startAccessGateway({
      'portico.hcl': JWKS_CONFIG(
        idp.url,
        'backend = "idp"',
        `  backend "idp" {
    origin = "${new URL(idp.url).origin}"
    set_request_headers = { x-from = "portico" }
  }
`,
      ),
    });
    const sign = (key: import('node:crypto').KeyObject, kid: string, sub: string): Promise<string> => new SignJWT({ sub }).setProtectedHeader({ alg: 'RS256', kid }).setExpirationTime('1m').sign(key);
    const first = await sign(rsa.privateKey, 'k1', 'one');
    const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(gw.url('/p'), { headers: { authorization: `Bearer ${first}` } }).then((r) => r.text())));
    expect(answers).toEqual(Array(10).fill('one'));
    expect(idp.requests()).toBe(1);
    keys = [{ ...(await exportJWK(rsa2.publicKey)), kid: 'k2', alg: 'RS256', use: 'sig' }];
    const rotated = await fetch(gw.url('/p'), { headers: { authorization: `Bearer ${await sign(rsa2.privateKey, 'k2', 'two')}` } });
    expect([rotated.status, await rotated.text()]).toEqual([200, 'two']);
    expect(idp.requests()).toBe(2);
    const backendLines = gw.records.filter((r) => r.type === 'gateway_backend');
    expect(backendLines.length).toBe(2);
  });

  it('signs with jwt_sign in any expression, and a jwt with signing_ttl accepts what it signed', async () => {
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  endpoint "/login" {
    response {
      json_body = {
        token   = jwt_sign("session", { sub = request.query.user[0] })
        profile = jwt_sign("svc", { scope = "read" })
      }
    }
  }
  endpoint "/me" {
    access_control = ["session"]
    response { body = request.context.session.sub }
  }
}
definitions {
  jwt "session" {
    signature_algorithm = "HS256"
    key = "${SECRET}"
    signing_ttl = "10m"
    claims = { iss = "portico" }
  }
  jwt_signing_profile "svc" {
    signature_algorithm = "RS256"
    key = ${JSON.stringify(rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }))}
    ttl = "1h"
    claims = { iss = "svc", aud = "backend" }
    headers = { kid = "svc-1" }
  }
}
`,
    });
    const login = (await (await fetch(gw.url('/login?user=grace'))).json()) as { token: string; profile: string };
    const me = await fetch(gw.url('/me'), { headers: { authorization: `Bearer ${login.token}` } });
    expect([me.status, await me.text()]).toEqual([200, 'grace']);
    // signing_ttl sets exp; the block's claims go in too.
    const session = decodeJwt(login.token);
    expect(session).toMatchObject({ sub: 'grace', iss: 'portico' });
    expect((session.exp ?? 0) - (session.iat ?? 0)).toBe(600);
    const verified = await jwtVerify(login.profile, rsa.publicKey, { issuer: 'svc', audience: 'backend' });
    expect(verified.protectedHeader).toMatchObject({ alg: 'RS256', typ: 'JWT', kid: 'svc-1' });
    expect(verified.payload).toMatchObject({ scope: 'read' });
    expect((verified.payload.exp ?? 0) - (verified.payload.iat ?? 0)).toBe(3600);
  });
});

describe('permissions', () => {
  const PERMS = `
server {
  hosts = ["*:0"]
  api {
    access_control = ["tok"]
    endpoint "/read" {
      beta_required_permission = "read"
      response { json_body = request.context }
    }
    endpoint "/items" {
      beta_required_permission = { GET = "read", post = "write" }
      response { body = request.context.beta_required_permission }
    }
    endpoint "/any" {
      beta_required_permission = { "*" = "admin" }
      response { body = "any" }
    }
    endpoint "/handled" {
      beta_required_permission = "admin"
      response { body = "never" }
      error_handler "beta_insufficient_permissions" {
        response {
          status = 403
          body = "ask an admin"
        }
      }
    }
  }
}
definitions {
  jwt "tok" {
    signature_algorithm = "HS256"
    key = "${SECRET}"
    beta_permissions_claim = "scope"
    beta_roles_claim = "roles"
    beta_roles_map = { editor = ["write"], "*" = ["read"] }
    beta_permissions_map = { write = ["read", "draft"], draft = ["preview"] }
  }
}
`;

  it('grants from the permissions claim, the roles map (with *) and the permissions map, recursively', async () => {
    const gw = await startAccessGateway({ 'portico.hcl': PERMS });
    const token = await hs256({ exp: now() + 60, scope: 'report', roles: ['editor'] });
    const res = await fetch(gw.url('/read'), { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const ctx = (await res.json()) as { beta_granted_permissions: string[]; beta_required_permission: string };
    expect([...ctx.beta_granted_permissions].sort()).toEqual(['draft', 'preview', 'read', 'report', 'write']);
    expect(ctx.beta_required_permission).toBe('read');
    // An unmapped role gets the `*` permissions.
    const guest = await hs256({ exp: now() + 60, roles: 'visitor' });
    expect((await fetch(gw.url('/read'), { headers: { authorization: `Bearer ${guest}` } })).status).toBe(200);
  });

  it("warns of a roles claim that is neither a string nor a list, with the request's uid, and grants nothing from it", async () => {
    const gw = await startAccessGateway({ 'portico.hcl': PERMS });
    const token = await hs256({ exp: now() + 60, scope: 'read', roles: 42 });
    const res = await fetch(gw.url('/read'), { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { beta_granted_permissions: string[] }).beta_granted_permissions).toEqual(['read']);
    expect(gw.warned).toEqual([{ message: expect.stringContaining('claim "roles" is neither a string nor a list of strings'), fields: { uid: res.headers.get('gateway-request-id') } }]);
  });

  it('refuses what is not granted (403), a method missing from the object (405), and lets the endpoint handle it', async () => {
    const gw = await startAccessGateway({ 'portico.hcl': PERMS });
    const reader = { authorization: `Bearer ${await hs256({ exp: now() + 60, scope: 'read' })}` };
    const get = await fetch(gw.url('/items'), { headers: reader });
    expect([get.status, await get.text()]).toEqual([200, 'read']);
    const post = await fetch(gw.url('/items'), { method: 'POST', headers: reader });
    expect([post.status, post.headers.get('gateway-error')]).toEqual([403, 'access control error']);
    expect(await post.json()).toMatchObject({ error: { status: 403 } });
    const missingMethod = await fetch(gw.url('/items'), { method: 'DELETE', headers: reader });
    expect([missingMethod.status, missingMethod.headers.get('allow')]).toEqual([405, 'GET, POST']);
    expect((await fetch(gw.url('/any'), { method: 'DELETE', headers: reader })).status).toBe(403);
    const handled = await fetch(gw.url('/handled'), { headers: reader });
    expect([handled.status, await handled.text()]).toEqual([403, 'ask an admin']);
    expect(gw.denials.map((d) => [d.type, d.label])).toEqual([
      ['beta_insufficient_permissions', null],
      ['beta_insufficient_permissions', null],
      ['beta_insufficient_permissions', null],
    ]);
  });

  it('never serves a permission-guarded endpoint without a grant, even with no access control', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  endpoint "/guarded" {
    beta_required_permission = "admin"
    proxy { backend = "b" }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`,
    });
    expect((await fetch(gw.url('/guarded'))).status).toBe(403);
    expect(backend.seen).toEqual([]);
  });
});
