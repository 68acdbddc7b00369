import { afterEach, describe, expect, it } from 'vitest';
import { startOidcProvider, startTokenEndpoint, type OidcProviderHandle, type TokenEndpointHandle } from '../../testing/login-providers/index.js';
import { freePort } from '../http/testing/test-gateway.js';
import { accessLines, startAccessGateway, type AccessGateway } from './testing/access-gateway.js';
import { callback, signIn, startLogin } from './testing/code-flow.js';
import { loginEndpointsHcl } from './testing/endpoint-hcl.js';

const closers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c.close()));
});

const backendOf = (gw: AccessGateway, handler: string): unknown => gw.records.find((r) => r.type === 'gateway_backend' && r['handler'] === handler)?.['backend'];

interface Setup {
  readonly port: number;
  readonly op: OidcProviderHandle;
  readonly gw: AccessGateway;
}

/**
 * An OpenID Provider and a gateway on a free port: `/login` and `/cb` for the control `label`
 * (the verifier in the cookie `v`; `/cb` answers "ok"), the `endpoints` given, and the
 * `definitions` written for that provider.
 */
async function setup(label: string, definitions: (provider: OidcProviderHandle) => string | Promise<string>, endpoints = ''): Promise<Setup> {
  const port = await freePort();
  const op = await startOidcProvider({ clients: [{ clientId: 'portico', clientSecret: 'sec', redirectUris: [`http://127.0.0.1:${port}/cb`], tokenEndpointAuthMethod: 'client_secret_basic' }], accounts: { alice: { password: 'pw', claims: { name: 'Alice' } } } });
  closers.push(op);
  const gw = await startAccessGateway({
    'portico.hcl': `server {
  hosts = ["*:${port}"]
${loginEndpointsHcl({ control: label, cookie: 'v', callbackResponse: 'body = "ok"' })}
${endpoints}}
definitions {
${await definitions(op)}}
`,
  });
  return { port, op, gw };
}

/** Signs alice in through `/login` → provider → `/cb`; returns the callback's status. */
async function login({ op, port }: Setup): Promise<number> {
  const { authorization, verifier } = await startLogin(port, 'v');
  return (await callback(port, await signIn(op, authorization, 'alice', 'pw'), 'v', verifier)).status;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('login controls: backends, key set TTL and log fields', () => {
  it('oidc: every request goes through the named backend; the key set is fetched again after jwks_ttl; custom_log_fields read the grant', async () => {
    const s = await setup(
      'op',
      ({ url, discoveryUrl }) => `  backend "idp" {
    origin = "${url}"
  }
  oidc "op" {
    configuration_url = "${discoveryUrl}"
    backend = "idp"
    jwks_ttl = "1s"
    jwks_max_stale = "0s"
    client_id = "portico"
    client_secret = "sec"
    redirect_uri = "/cb"
    verifier_value = request.cookies.v
    custom_log_fields = { login_sub = request.context.op.id_token_claims.sub }
  }
`,
    );
    expect(await login(s)).toBe(200);
    for (const purpose of ['configuration', 'jwks', 'token', 'userinfo']) expect(backendOf(s.gw, `oidc:${purpose}:op`), purpose).toBe('idp');
    expect(accessLines(s.gw).at(-1)).toMatchObject({ status: 200, custom: { login_sub: 'alice' } });
    expect(s.op.count(s.op.jwksUrl)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await login(s)).toBe(200);
    expect(s.op.count(s.op.jwksUrl)).toBe(2);
  });

  it('beta_oauth2 and backend oauth2: the token request goes through the named backend', async () => {
    const tokens: TokenEndpointHandle = await startTokenEndpoint({ clients: { portico: 'sec' } });
    closers.push(tokens);
    const proxied = `  endpoint "/r" {
    proxy {
      backend = "api"
    }
  }
`;
    const s = await setup(
      'as',
      ({ url, authorizationUrl, tokenUrl }) => `  backend "as_backend" {
    origin = "${url}"
  }
  beta_oauth2 "as" {
    backend = "as_backend"
    authorization_endpoint = "${authorizationUrl}"
    token_endpoint = "${tokenUrl}"
    grant_type = "authorization_code"
    redirect_uri = "/cb"
    client_id = "portico"
    client_secret = "sec"
    scope = "openid"
    verifier_method = "ccm_s256"
    verifier_value = request.cookies.v
    custom_log_fields = { token_type = request.context.as.token_type }
  }
  backend "token_backend" {
    origin = "${new URL(tokens.url).origin}"
  }
  backend "api" {
    origin = "${new URL(tokens.url).origin}"
    path = "/resource/x"
    oauth2 {
      backend = "token_backend"
      grant_type = "client_credentials"
      token_endpoint = "${tokens.tokenUrl}"
      client_id = "portico"
      client_secret = "sec"
    }
  }
`,
      proxied,
    );
    expect(await login(s)).toBe(200);
    expect(backendOf(s.gw, 'beta_oauth2:token:as')).toBe('as_backend');
    expect(accessLines(s.gw).find((r) => String(r['url']).includes('/cb'))?.['custom']).toEqual({ token_type: 'Bearer' });
    expect((await fetch(`http://127.0.0.1:${s.port}/r`)).status).toBe(200);
    expect(backendOf(s.gw, 'oauth2:client_credentials')).toBe('token_backend');
  });

  it('oidc: configuration_backend, jwks_uri_backend and userinfo_backend each take their request', async () => {
    const s = await setup(
      'op',
      ({ url, discoveryUrl }) => `  backend "conf" { origin = "${url}" }
  backend "keys" { origin = "${url}" }
  backend "info" { origin = "${url}" }
  oidc "op" {
    configuration_url = "${discoveryUrl}"
    configuration_backend = "conf"
    jwks_uri_backend = "keys"
    userinfo_backend = "info"
    client_id = "portico"
    client_secret = "sec"
    redirect_uri = "/cb"
    verifier_value = request.cookies.v
  }
`,
    );
    expect(await login(s)).toBe(200);
    expect([backendOf(s.gw, 'oidc:configuration:op'), backendOf(s.gw, 'oidc:jwks:op'), backendOf(s.gw, 'oidc:userinfo:op')]).toEqual(['conf', 'keys', 'info']);
    expect(backendOf(s.gw, 'oidc:token:op')).toMatch(/^anonymous_/);
  });
  it('oidc: with the key set down, ID tokens verify with the kept keys until jwks_max_stale, then the login fails until it is back', async () => {
    const s = await setup(
      'op',
      ({ discoveryUrl }) => `  oidc "op" {
    configuration_url = "${discoveryUrl}"
    jwks_ttl = "1s"
    jwks_max_stale = "2s"
    client_id = "portico"
    client_secret = "sec"
    redirect_uri = "/cb"
    verifier_value = request.cookies.v
  }
`,
    );
    const asked = (): number => s.op.count(s.op.jwksUrl);
    expect(await login(s)).toBe(200);
    const fetchedAt = Date.now();
    expect(asked()).toBe(1);

    s.op.setDown(true, ['/jwks']);
    await sleep(1200);
    // Past jwks_ttl: the key set is asked again, fails, and the kept keys still verify.
    const failedAt = Date.now();
    expect(await login(s)).toBe(200);
    expect(asked()).toBe(2);

    await sleep(Math.max(0, fetchedAt + 3300 - Date.now()));
    // Past jwks_ttl + jwks_max_stale: no keys to verify with, so the login fails. The key set
    // is not asked again within 5 s of the failed try.
    expect(await login(s)).toBe(403);
    expect(accessLines(s.gw).at(-1)).toMatchObject({ status: 403, error_type: expect.stringMatching(/^oauth2/) });
    expect(asked()).toBe(2);

    s.op.setDown(false);
    await sleep(Math.max(0, failedAt + 5300 - Date.now()));
    expect(await login(s)).toBe(200);
    expect(asked()).toBe(3);
  });
  it('oidc: refuses to send a request the provider names to a backend whose origin is another host, and says why', async () => {
    const s = await setup(
      'op',
      ({ url, discoveryUrl }) => `  backend "keys" { origin = "${url.replace('127.0.0.1', 'localhost')}" }
  oidc "op" {
    configuration_url = "${discoveryUrl}"
    jwks_uri_backend = "keys"
    client_id = "portico"
    client_secret = "sec"
    redirect_uri = "/cb"
    verifier_value = request.cookies.v
  }
`,
    );
    expect(await login(s)).toBe(403);
    expect(s.op.count(s.op.jwksUrl)).toBe(0);
    expect(backendOf(s.gw, 'oidc:jwks:op')).toBeUndefined();
    const line = accessLines(s.gw).at(-1);
    expect(line).toMatchObject({ status: 403, error_type: expect.stringMatching(/^oauth2/) });
    expect(String(line?.['message'])).toContain(`${s.op.jwksUrl} is not on backend "keys" (origin ${s.op.url.replace('127.0.0.1', 'localhost')})`);
  });
});
