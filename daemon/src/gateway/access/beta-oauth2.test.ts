import { afterEach, describe, expect, it } from 'vitest';
import { startOidcProvider, type OidcProviderHandle } from '../../testing/login-providers/index.js';
import { freePort } from '../http/testing/test-gateway.js';
import { s256 } from './oauth2/pkce.js';
import { accessLines, startAccessGateway, type AccessGateway } from './testing/access-gateway.js';
import { callback as callbackAt, signIn, startLogin } from './testing/code-flow.js';
import { loginEndpointsHcl } from './testing/endpoint-hcl.js';

const providers: OidcProviderHandle[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

interface Setup {
  readonly as: OidcProviderHandle;
  readonly gw: AccessGateway;
  readonly port: number;
}

/** An authorization server (oidc-provider) and a gateway with `/login` and `/cb` guarded by a beta_oauth2 block. */
interface SetupOptions {
  /** HCL added to the beta_oauth2 block. */
  readonly extra?: string;
  readonly redirectUri?: string;
  /** Scopes the user does not consent to at the authorization server. */
  readonly withheldScopes?: readonly string[];
}

async function setup(method: 'ccm_s256' | 'state', authMethod: 'client_secret_basic' | 'client_secret_post', options: SetupOptions = {}): Promise<Setup> {
  const { extra = '', redirectUri, withheldScopes } = options;
  const port = await freePort();
  const as = await startOidcProvider({
    clients: [{ clientId: 'portico', clientSecret: 'as-secret', redirectUris: [`http://localhost:${port}/cb`, `http://127.0.0.1:${port}/cb`], tokenEndpointAuthMethod: authMethod }],
    accounts: { alice: { password: 'pw', claims: { name: 'Alice' } } },
    withheldScopes,
  });
  providers.push(as);
  const gw = await startAccessGateway({
    'portico.hcl': `server {
  hosts = ["*:${port}"]
${loginEndpointsHcl({ control: 'as', cookie: 'v', callbackResponse: 'json_body = request.context.as' })}
}
definitions {
  beta_oauth2 "as" {
    authorization_endpoint = "${as.authorizationUrl}"
    token_endpoint = "${as.tokenUrl}"
    token_endpoint_auth_method = "${authMethod}"
    grant_type = "authorization_code"
    redirect_uri = "${redirectUri ?? `http://localhost:${port}/cb`}"
    client_id = "portico"
    client_secret = "as-secret"
    scope = "openid profile"
    verifier_method = "${method}"
    verifier_value = request.cookies.v
${extra}
  }
}
`,
  });
  return { as, gw, port };
}

async function login(s: Setup): Promise<{ url: URL; verifier: string; redirect: string }> {
  const { authorization, verifier } = await startLogin(s.port, 'v');
  return { url: authorization, verifier, redirect: await signIn(s.as, authorization, 'alice', 'pw') };
}

const callback = (s: Setup, redirect: string, verifier: string): Promise<Response> => callbackAt(s.port, redirect, 'v', verifier);

describe('beta_oauth2', () => {
  it('with ccm_s256 sends the code challenge, and the code verifier with the code (client_secret_basic)', async () => {
    const s = await setup('ccm_s256', 'client_secret_basic');
    const flow = await login(s);
    expect(Object.fromEntries(flow.url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'portico',
      redirect_uri: `http://localhost:${s.port}/cb`,
      scope: 'openid profile',
      code_challenge: s256(flow.verifier),
      code_challenge_method: 'S256',
    });
    const res = await callback(s, flow.redirect, flow.verifier);
    expect(res.status).toBe(200);
    const context = (await res.json()) as Record<string, unknown>;
    expect(context).toMatchObject({ token_type: 'Bearer', expires_in: expect.any(Number) });
    expect(typeof context['access_token']).toBe('string');
    expect(s.as.requests.find((r) => r.grantType === 'authorization_code')?.authMethod).toBe('basic');
    // A wrong verifier: the authorization server refuses the code.
    const second = await login(s);
    expect((await callback(s, second.redirect, 'z'.repeat(43))).status).toBe(403);
    expect(accessLines(s.gw).at(-1)?.['message']).toMatch(/invalid_grant/);
  });

  it('resolves a relative redirect_uri against the request origin, in the authorization URL and the token request', async () => {
    const s = await setup('ccm_s256', 'client_secret_basic', { redirectUri: '/cb' });
    const flow = await login(s);
    expect(flow.url.searchParams.get('redirect_uri')).toBe(`http://127.0.0.1:${s.port}/cb`);
    // The authorization server refuses a code whose token request names another redirect_uri.
    const res = await callback(s, flow.redirect, flow.verifier);
    expect(res.status).toBe(200);
    expect(s.as.requests.filter((r) => r.grantType === 'authorization_code')).toHaveLength(1);
  });

  it('puts the granted scope into request.context.<label> when the server grants less than was asked for', async () => {
    const s = await setup('ccm_s256', 'client_secret_basic', { withheldScopes: ['profile'] });
    const flow = await login(s);
    expect(flow.url.searchParams.get('scope')).toBe('openid profile');
    const res = await callback(s, flow.redirect, flow.verifier);
    expect(res.status).toBe(200);
    const context = (await res.json()) as Record<string, unknown>;
    expect(context['scope']).toBe('openid');
    expect(typeof context['access_token']).toBe('string');
  });

  it('with state checks the state against the verifier before exchanging the code (client_secret_post)', async () => {
    const s = await setup('state', 'client_secret_post');
    const flow = await login(s);
    expect(flow.url.searchParams.get('state')).toBe(s256(flow.verifier));
    expect(flow.url.searchParams.has('code_challenge')).toBe(false);
    const tokenRequests = () => s.as.requests.filter((r) => r.grantType === 'authorization_code').length;
    // Another browser's cookie: a CSRF attempt, refused before any token request.
    const crossed = await callback(s, flow.redirect, 'someone-else');
    expect(crossed.status).toBe(403);
    expect(accessLines(s.gw).at(-1)?.['message']).toMatch(/state mismatch/);
    const noState = new URL(flow.redirect);
    noState.searchParams.delete('state');
    expect((await callback(s, noState.href, flow.verifier)).status).toBe(403);
    expect(accessLines(s.gw).at(-1)?.['message']).toMatch(/missing state query parameter/);
    expect(tokenRequests()).toBe(0);
    expect((await callback(s, flow.redirect, flow.verifier)).status).toBe(200);
    expect(s.as.requests.find((r) => r.grantType === 'authorization_code')?.authMethod).toBe('post');
  });

  it('answers its error_handler for an unreachable token endpoint and shows the provider error', async () => {
    const s = await setup('ccm_s256', 'client_secret_basic', { extra: '    error_handler "oauth2" {\n      response {\n        status = 502\n        json_body = { error = "login failed" }\n      }\n    }' });
    const flow = await login(s);
    providers.splice(providers.indexOf(s.as), 1);
    await s.as.close();
    const res = await callback(s, flow.redirect, flow.verifier);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ error: 'login failed' });
    expect(s.gw.access().loginStatus()[0]).toMatchObject({ kind: 'beta_oauth2', provider: new URL(s.as.url).origin });
    expect(s.gw.access().loginStatus()[0]?.lastError).toMatch(/failed/);
  });
});
