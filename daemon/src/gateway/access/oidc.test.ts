import { afterEach, describe, expect, it } from 'vitest';
import { startOidcProvider, type OidcProviderHandle } from '../../testing/login-providers/index.js';
import { freePort } from '../http/testing/test-gateway.js';
import { s256 } from './oauth2/pkce.js';
import { accessLines, startAccessGateway, type AccessGateway } from './testing/access-gateway.js';
import { callback as callbackAt, signIn as signInAt, startLogin as startLoginAt, type LoginStart } from './testing/code-flow.js';
import { loginEndpointsHcl } from './testing/endpoint-hcl.js';

const providers: OidcProviderHandle[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

/** The cookie `/login` keeps the verifier in. */
const COOKIE = 'pkcecv';
const ALICE = { password: 'alice-pw', claims: { name: 'Alice Example', email: 'alice@example.test' } };

interface Setup {
  readonly op: OidcProviderHandle;
  readonly gw: AccessGateway;
  readonly port: number;
}

/**
 * An OpenID Provider and a gateway with `/login` (redirects to the provider, stores the
 * verifier in a cookie, as the peer's documentation shows) and `/cb` guarded by the oidc.
 */
async function setup(oidc: string, { authMethod = 'client_secret_basic' as 'client_secret_basic' | 'client_secret_post', extra = '', advertisesPkce = true } = {}): Promise<Setup> {
  const port = await freePort();
  const op = await startOidcProvider({
    clients: [{ clientId: 'portico', clientSecret: 'op-secret', redirectUris: [`http://127.0.0.1:${port}/cb`], tokenEndpointAuthMethod: authMethod }],
    accounts: { alice: ALICE },
    advertisesPkce,
  });
  providers.push(op);
  const gw = await startAccessGateway({
    'portico.hcl': `server {
  hosts = ["*:${port}"]
${loginEndpointsHcl({ control: 'op', cookie: COOKIE, cookieAttributes: '; HttpOnly; Path=/cb', callbackResponse: 'json_body = request.context.op' })}
${extra}
}
definitions {
  oidc "op" {
    configuration_url = "${op.discoveryUrl}"
    client_id = "portico"
    client_secret = "op-secret"
    redirect_uri = "/cb"
    scope = "profile email"
    verifier_value = request.cookies.pkcecv
    token_endpoint_auth_method = "${authMethod}"
${oidc}
  }
}
`,
  });
  return { op, gw, port };
}

async function startLogin(s: Setup): Promise<LoginStart> {
  const login = await startLoginAt(s.port, COOKIE);
  expect(login.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return login;
}

const signIn = (s: Setup, login: LoginStart): Promise<string> => signInAt(s.op, login.authorization, 'alice', 'alice-pw');
const callback = (s: Setup, redirect: string, verifier: string, init: RequestInit = {}): Promise<Response> => callbackAt(s.port, redirect, COOKIE, verifier, init);

describe('oidc', () => {
  it('builds the authorization URL from the discovered configuration, with PKCE when the provider supports S256', async () => {
    const s = await setup('');
    const login = await startLogin(s);
    expect(login.authorization.origin + login.authorization.pathname).toBe(new URL(s.op.authorizationUrl).href);
    expect(Object.fromEntries(login.authorization.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'portico',
      redirect_uri: `http://127.0.0.1:${s.port}/cb`,
      scope: 'openid profile email',
      code_challenge: s256(login.verifier),
      code_challenge_method: 'S256',
    });
  });

  it('signs in: code exchanged with client_secret_basic, ID token verified, userinfo fetched; the configuration is fetched once', async () => {
    const s = await setup('');
    for (let i = 0; i < 2; i++) {
      const login = await startLogin(s);
      const res = await callback(s, await signIn(s, login), login.verifier);
      expect(res.status).toBe(200);
      const context = (await res.json()) as Record<string, unknown>;
      expect(context).toMatchObject({ token_type: 'Bearer', id_token_claims: { sub: 'alice', aud: 'portico', iss: s.op.issuer }, userinfo: { sub: 'alice', name: 'Alice Example', email: 'alice@example.test' } });
      expect(typeof context['access_token']).toBe('string');
      expect(typeof context['id_token']).toBe('string');
    }
    expect(s.op.count('/.well-known/openid-configuration')).toBe(1);
    expect(s.op.requests.filter((r) => r.grantType === 'authorization_code').map((r) => r.authMethod)).toEqual(['basic', 'basic']);
    expect(accessLines(s.gw).at(-1)).toMatchObject({ status: 200, auth_user: 'alice' });
    expect(JSON.stringify(s.gw.records)).not.toContain('op-secret');
  });

  it('sends the client credentials in the body with client_secret_post', async () => {
    const s = await setup('', { authMethod: 'client_secret_post' });
    const login = await startLogin(s);
    expect((await callback(s, await signIn(s, login), login.verifier)).status).toBe(200);
    expect(s.op.requests.find((r) => r.grantType === 'authorization_code')?.authMethod).toBe('post');
  });

  it('with verifier_method nonce sends the nonce and checks it in the ID token', async () => {
    const s = await setup('    verifier_method = "nonce"');
    const login = await startLogin(s);
    expect(login.authorization.searchParams.get('nonce')).toBe(s256(login.verifier));
    expect(login.authorization.searchParams.has('code_challenge')).toBe(false);
    const redirect = await signIn(s, login);
    // Another browser's verifier: the ID token's nonce is not its hash.
    const crossed = await callback(s, redirect, 'x'.repeat(43));
    expect(crossed.status).toBe(403);
    expect(accessLines(s.gw).at(-1)?.['message']).toMatch(/nonce is not the hash of verifier_value/);
    const login2 = await startLogin(s);
    const ok = await callback(s, await signIn(s, login2), login2.verifier);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { id_token_claims: { nonce: string } }).id_token_claims.nonce).toBe(s256(login2.verifier));
  });

  it('without verifier_method, uses nonce with a provider that lists no PKCE method', async () => {
    const s = await setup('', { advertisesPkce: false });
    const discovery = (await (await fetch(s.op.discoveryUrl)).json()) as Record<string, unknown>;
    expect(discovery).not.toHaveProperty('code_challenge_methods_supported');
    const login = await startLogin(s);
    expect(login.authorization.searchParams.get('nonce')).toBe(s256(login.verifier));
    expect(login.authorization.searchParams.has('code_challenge')).toBe(false);
    const ok = await callback(s, await signIn(s, login), login.verifier);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { id_token_claims: { nonce: string } }).id_token_claims.nonce).toBe(s256(login.verifier));
  });

  it('refuses a callback whose PKCE verifier does not match (the provider refuses the code), and records the provider error', async () => {
    const s = await setup('');
    const login = await startLogin(s);
    const res = await callback(s, await signIn(s, login), 'y'.repeat(43));
    expect(res.status).toBe(403);
    expect(res.headers.get('gateway-error')).toBe('access control error');
    const line = accessLines(s.gw).at(-1);
    expect(line).toMatchObject({ error_type: 'oauth2' });
    expect(String(line?.['message'])).toMatch(/requesting the token failed: .*400: invalid_grant/);
    expect(s.gw.denials.at(-1)).toMatchObject({ type: 'oauth2', label: 'op' });
  });

  it('refuses callbacks without a code, with an error, without a verifier, or not a GET; error_handler oauth2 answers instead', async () => {
    const s = await setup('    error_handler "oauth2" {\n      response {\n        status = 400\n        body = "login failed"\n      }\n    }');
    const cases: [string, RequestInit, RegExp][] = [
      ['/cb?state=x', {}, /missing code query parameter/],
      ['/cb?error=access_denied&error_description=nope', {}, /answered error "access_denied" \(nope\)/],
      ['/cb?code=abc', { headers: { cookie: '' } }, /verifier_value is empty/],
      ['/cb?code=abc', { method: 'POST' }, /wrong method: POST/],
    ];
    for (const [path, init, message] of cases) {
      const res = await fetch(`http://127.0.0.1:${s.port}${path}`, { ...init, headers: { cookie: 'pkcecv=v', ...(init.headers as Record<string, string> | undefined) } });
      expect(res.status).toBe(400);
      expect(await res.text()).toBe('login failed');
      expect(accessLines(s.gw).at(-1)?.['message']).toMatch(message);
    }
  });

  it('keeps serving logins from a stale configuration while the provider is down, and says so', async () => {
    const s = await setup('    configuration_ttl = "1s"\n    configuration_max_stale = "1h"');
    const first = await startLogin(s);
    expect((await callback(s, await signIn(s, first), first.verifier)).status).toBe(200);
    s.op.setDown(true);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // Past its TTL the cached configuration still builds the URL; the refresh fails in the background.
    const stale = await fetch(`http://127.0.0.1:${s.port}/login`, { redirect: 'manual' });
    expect(stale.status).toBe(303);
    await expect.poll(() => s.gw.access().loginStatus()[0]?.usingCachedConfiguration).toBe(true);
    expect(s.gw.access().loginStatus()[0]?.lastError).toMatch(/openid-configuration answered 503/);
  });

  it('starts with the provider down: the login answers its error type (oauth2), and works once the provider is back', async () => {
    const port = await freePort();
    const op = await startOidcProvider({ clients: [{ clientId: 'portico', clientSecret: 'op-secret', redirectUris: [`http://127.0.0.1:${port}/cb`], tokenEndpointAuthMethod: 'client_secret_basic' }], accounts: { alice: ALICE } });
    providers.push(op);
    op.setDown(true);
    const gw = await startAccessGateway({
      'portico.hcl': `server {
  hosts = ["*:${port}"]
  endpoint "/login" {
    response {
      status = 303
      headers = { location = oauth2_authorization_url("op") }
    }
    error_handler "oauth2" {
      response {
        status = 503
        body = "sign-in is unavailable"
      }
    }
  }
}
definitions {
  oidc "op" {
    configuration_url = "${op.discoveryUrl}"
    client_id = "portico"
    client_secret = "op-secret"
    redirect_uri = "/cb"
    verifier_value = request.cookies.pkcecv
  }
}
`,
    });
    const down = await fetch(`http://127.0.0.1:${port}/login`, { redirect: 'manual' });
    expect(down.status).toBe(503);
    expect(await down.text()).toBe('sign-in is unavailable');
    expect(accessLines(gw).at(-1)).toMatchObject({ error_type: 'oauth2' });
    expect(gw.access().loginStatus()[0]).toMatchObject({ kind: 'oidc', provider: op.discoveryUrl, usingCachedConfiguration: false, configurationFetchedAt: null });
    expect(gw.access().loginStatus()[0]?.lastError).toMatch(/503/);
    op.setDown(false);
    await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/login`, { redirect: 'manual' })).status, { timeout: 15_000, interval: 250 }).toBe(303);
    expect(gw.access().loginStatus()[0]?.lastError).toBeNull();
  });

  it('verifies ID tokens signed with a rotated key (the key set is fetched again for the new kid)', async () => {
    const s = await setup('');
    const first = await startLogin(s);
    expect((await callback(s, await signIn(s, first), first.verifier)).status).toBe(200);
    await s.op.rotateKeys();
    const second = await startLogin(s);
    expect((await callback(s, await signIn(s, second), second.verifier)).status).toBe(200);
    expect(s.op.count(s.op.jwksUrl)).toBe(2);
  });

  it('resolves a relative redirect_uri against the forwarded origin when accept_forwarded_url allows it, in the URL and the token request', async () => {
    const port = await freePort();
    const op = await startOidcProvider({ clients: [{ clientId: 'portico', clientSecret: 'op-secret', redirectUris: ['https://app.example:8443/cb'], tokenEndpointAuthMethod: 'client_secret_basic' }], accounts: { alice: ALICE } });
    providers.push(op);
    const gw = await startAccessGateway({
      'portico.hcl': `server {
  hosts = ["*:${port}"]
${loginEndpointsHcl({ control: 'op', cookie: COOKIE, callbackResponse: 'json_body = request.context.op.userinfo' })}
}
settings {
  accept_forwarded_url = ["proto", "host", "port"]
}
definitions {
  backend "token" {
    origin = "${op.url}"
  }
  oidc "op" {
    configuration_url = "${op.discoveryUrl}"
    client_id = "portico"
    client_secret = "op-secret"
    redirect_uri = "/cb"
    verifier_value = request.cookies.pkcecv
    token_backend = "token"
  }
}
`,
    });
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example', 'x-forwarded-port': '8443' };
    const res = await fetch(`http://127.0.0.1:${port}/login`, { redirect: 'manual', headers: forwarded });
    const authorization = new URL(res.headers.get('location') ?? '');
    expect(authorization.searchParams.get('redirect_uri')).toBe('https://app.example:8443/cb');
    const verifier = /pkcecv=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const s: Setup = { op, gw, port };
    const redirect = await signIn(s, { authorization, verifier });
    // The provider checks that the token request repeats the redirect_uri of the authorization request.
    const done = await callback(s, redirect, verifier, { headers: { cookie: `pkcecv=${verifier}`, ...forwarded } });
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ sub: 'alice' });
    // The token request went through the token_backend, the other requests through the anonymous one.
    const backendLines = gw.records.filter((r) => r.type === 'gateway_backend');
    expect(backendLines.find((r) => r['handler'] === 'oidc:token:op')?.['backend']).toBe('token');
    expect(backendLines.find((r) => r['handler'] === 'oidc:userinfo:op')?.['backend']).toMatch(/^anonymous_/);
  });
});
