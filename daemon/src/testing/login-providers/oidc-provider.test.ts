import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type OidcProviderHandle } from './oidc-provider.js';

const BASIC_CLIENT = { clientId: 'basic-client', clientSecret: 'basic secret+1', redirectUris: ['http://localhost:8080/oidc/callback'], tokenEndpointAuthMethod: 'client_secret_basic' } as const;
const POST_CLIENT = { clientId: 'post-client', clientSecret: 'post-secret', redirectUris: ['http://127.0.0.1:8080/cb'], tokenEndpointAuthMethod: 'client_secret_post' } as const;
const ACCOUNTS = {
  alice: { password: 'alice-password', claims: { name: 'Alice Example', email: 'alice@example.test', groups: ['staff', 'admins'] } },
};

let op: OidcProviderHandle;

beforeAll(async () => {
  op = await startOidcProvider({ clients: [BASIC_CLIENT, POST_CLIENT], accounts: ACCOUNTS });
});

afterAll(async () => {
  await op.close();
});

function basicAuthorization(clientId: string, secret: string): string {
  const encode = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}

interface TestClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tokenEndpointAuthMethod: string;
}

async function exchangeCode(code: string, redirectUri: string, client: TestClient, extra: Record<string, string> = {}, tokenUrl = op.tokenUrl): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, ...extra });
  const headers: Record<string, string> = {};
  if (client.tokenEndpointAuthMethod === 'client_secret_basic') {
    headers['authorization'] = basicAuthorization(client.clientId, client.clientSecret);
  } else {
    form.set('client_id', client.clientId);
    form.set('client_secret', client.clientSecret);
  }
  const response = await fetch(tokenUrl, { method: 'POST', headers, body: form });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function lastRequest(path: string) {
  return op.requests.findLast((request) => request.path === path);
}

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

describe('discovery', () => {
  it('advertises its own endpoints, S256 PKCE and the openid, profile and email scopes', async () => {
    const response = await fetch(op.discoveryUrl);
    const discovery = (await response.json()) as Record<string, unknown>;
    expect(response.status).toBe(200);
    expect(op.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(discovery).toMatchObject({
      issuer: op.issuer,
      authorization_endpoint: op.authorizationUrl,
      token_endpoint: op.tokenUrl,
      userinfo_endpoint: op.userinfoUrl,
      jwks_uri: op.jwksUrl,
      code_challenge_methods_supported: ['S256'],
      id_token_signing_alg_values_supported: ['RS256'],
      response_types_supported: ['code'],
    });
    expect(discovery['scopes_supported']).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    expect(discovery['token_endpoint_auth_methods_supported']).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post']));
    expect(discovery['claims_supported']).toEqual(expect.arrayContaining(['sub', 'name', 'email', 'groups']));
  });
});

describe('authorization code flow', () => {
  it('issues an ID token with iss, aud, nonce and the account claims to a client_secret_basic client', async () => {
    const nonce = randomBytes(8).toString('hex');
    const redirectUri = BASIC_CLIENT.redirectUris[0];
    const result = await op.authorize({ clientId: BASIC_CLIENT.clientId, redirectUri, scope: 'openid profile email', state: 'st-1', nonce, username: 'alice', password: 'alice-password' });
    expect(result.state).toBe('st-1');
    expect(result.redirect.startsWith(`${redirectUri}?`)).toBe(true);

    const tokens = await exchangeCode(result.code, redirectUri, BASIC_CLIENT);
    expect(tokens.status).toBe(200);
    const { payload } = await jwtVerify(String(tokens.body['id_token']), createRemoteJWKSet(new URL(op.jwksUrl)), { issuer: op.issuer, audience: BASIC_CLIENT.clientId });
    expect(payload).toMatchObject({ sub: 'alice', nonce, name: 'Alice Example', email: 'alice@example.test', groups: ['staff', 'admins'] });
    expect(lastRequest('/token')).toMatchObject({ method: 'POST', authMethod: 'basic', grantType: 'authorization_code' });

    const userinfo = await fetch(op.userinfoUrl, { headers: { authorization: `Bearer ${String(tokens.body['access_token'])}` } });
    expect(await userinfo.json()).toMatchObject({ sub: 'alice', email: 'alice@example.test', groups: ['staff', 'admins'] });
  });

  it('takes the client secret in the body from a client_secret_post client and records it as post', async () => {
    const redirectUri = POST_CLIENT.redirectUris[0];
    const result = await op.authorize({ clientId: POST_CLIENT.clientId, redirectUri, scope: 'openid email', nonce: 'n-post', username: 'alice', password: 'alice-password' });
    expect(result.state).toBeNull();

    const tokens = await exchangeCode(result.code, redirectUri, POST_CLIENT);
    expect(tokens.status).toBe(200);
    const { payload } = await jwtVerify(String(tokens.body['id_token']), createRemoteJWKSet(new URL(op.jwksUrl)), { issuer: op.issuer, audience: POST_CLIENT.clientId });
    expect(payload['nonce']).toBe('n-post');
    expect(payload['email']).toBe('alice@example.test');
    expect(payload['name']).toBeUndefined();
    expect(lastRequest('/token')).toMatchObject({ authMethod: 'post', grantType: 'authorization_code' });
  });

  it('refuses a wrong client secret with invalid_client', async () => {
    const redirectUri = POST_CLIENT.redirectUris[0];
    const result = await op.authorize({ clientId: POST_CLIENT.clientId, redirectUri, scope: 'openid', username: 'alice', password: 'alice-password' });
    const tokens = await exchangeCode(result.code, redirectUri, { ...POST_CLIENT, clientSecret: 'wrong' });
    expect(tokens.status).toBe(401);
    expect(tokens.body['error']).toBe('invalid_client');
    expect(lastRequest('/token')).toMatchObject({ authMethod: 'post', grantType: 'authorization_code' });
  });

  it('accepts the right PKCE S256 verifier and refuses a wrong or missing one', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const redirectUri = BASIC_CLIENT.redirectUris[0];
    const authorize = () => op.authorize({ clientId: BASIC_CLIENT.clientId, redirectUri, scope: 'openid', codeChallenge: s256(verifier), codeChallengeMethod: 'S256', username: 'alice', password: 'alice-password' });

    const wrong = await exchangeCode((await authorize()).code, redirectUri, BASIC_CLIENT, { code_verifier: randomBytes(32).toString('base64url') });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const missing = await exchangeCode((await authorize()).code, redirectUri, BASIC_CLIENT);
    expect(missing).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const right = await exchangeCode((await authorize()).code, redirectUri, BASIC_CLIENT, { code_verifier: verifier });
    expect(right.status).toBe(200);
    expect(typeof right.body['id_token']).toBe('string');
  });

  it('rejects authorize() when the password is wrong', async () => {
    await expect(op.authorize({ clientId: BASIC_CLIENT.clientId, redirectUri: BASIC_CLIENT.redirectUris[0], scope: 'openid', username: 'alice', password: 'nope', state: 's' })).rejects.toThrow("the login page refused alice's password (401)");
  });
});

describe('login page', () => {
  async function openLoginPage(): Promise<{ url: URL; cookie: string; html: string }> {
    const query = new URLSearchParams({ client_id: BASIC_CLIENT.clientId, redirect_uri: BASIC_CLIENT.redirectUris[0], response_type: 'code', scope: 'openid', state: 'page' });
    const start = await fetch(`${op.authorizationUrl}?${query}`, { redirect: 'manual' });
    expect(start.status).toBe(303);
    const url = new URL(start.headers.get('location') ?? '', op.issuer);
    const cookie = start.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
    const page = await fetch(url, { headers: { cookie } });
    expect(page.status).toBe(200);
    return { url, cookie, html: await page.text() };
  }

  it('shows a form with labelled username and password inputs and a Sign in button', async () => {
    const { url, html } = await openLoginPage();
    expect(url.pathname).toMatch(/^\/interaction\/[\w-]+$/);
    expect(html).toMatch(/<label for="username">[^<]+<\/label>\s*<input id="username" name="username"/);
    expect(html).toMatch(/<label for="password">[^<]+<\/label>\s*<input id="password" name="password" type="password"/);
    expect(html).toMatch(/<button type="submit">Sign in<\/button>/);
    expect(html).toContain('<form method="post"');
  });

  it('answers a wrong password with 401 and the form again, then lets the right one through', async () => {
    const { url, cookie } = await openLoginPage();
    const post = (password: string) => fetch(url, { method: 'POST', headers: { cookie }, body: new URLSearchParams({ username: 'alice', password }), redirect: 'manual' });

    const refused = await post('wrong');
    const html = await refused.text();
    expect(refused.status).toBe(401);
    expect(html).toContain('role="alert"');
    expect(html).toContain('name="password"');
    expect(html).toContain('value="alice"');

    const accepted = await post('alice-password');
    expect(accepted.status).toBe(303);
    expect(new URL(accepted.headers.get('location') ?? '').pathname).toBe(`/auth/${url.pathname.split('/').at(-1)}`);
  });
});

describe('recording, keys and outages', () => {
  it('counts requests by path or endpoint URL', async () => {
    const before = op.count('/.well-known/openid-configuration');
    await fetch(op.discoveryUrl);
    await fetch(op.discoveryUrl);
    expect(op.count('/.well-known/openid-configuration')).toBe(before + 2);
    expect(op.count(op.discoveryUrl)).toBe(before + 2);
  });

  it('rotateKeys publishes a new kid, signs new ID tokens with it and keeps codes issued before', async () => {
    const kidsOf = async () => ((await (await fetch(op.jwksUrl)).json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);
    const [oldKid] = await kidsOf();
    const redirectUri = BASIC_CLIENT.redirectUris[0];
    const { code } = await op.authorize({ clientId: BASIC_CLIENT.clientId, redirectUri, scope: 'openid', nonce: 'rotated', username: 'alice', password: 'alice-password' });

    await op.rotateKeys();
    const newKids = await kidsOf();
    expect(newKids).toHaveLength(1);
    expect(newKids[0]).not.toBe(oldKid);

    const tokens = await exchangeCode(code, redirectUri, BASIC_CLIENT);
    expect(tokens.status).toBe(200);
    const idToken = String(tokens.body['id_token']);
    expect(decodeProtectedHeader(idToken).kid).toBe(newKids[0]);
    await expect(jwtVerify(idToken, createRemoteJWKSet(new URL(op.jwksUrl)), { issuer: op.issuer, audience: BASIC_CLIENT.clientId })).resolves.toBeDefined();
  });

  it('answers 503 on every endpoint while down and is recorded meanwhile', async () => {
    op.setDown(true);
    try {
      const before = op.count(op.jwksUrl);
      expect((await fetch(op.discoveryUrl)).status).toBe(503);
      expect((await fetch(op.jwksUrl)).status).toBe(503);
      expect((await fetch(op.tokenUrl, { method: 'POST' })).status).toBe(503);
      expect(op.count(op.jwksUrl)).toBe(before + 1);
    } finally {
      op.setDown(false);
    }
    expect((await fetch(op.discoveryUrl)).status).toBe(200);
  });
});

describe('options', () => {
  it('signs with ES256 and uses the given ID token lifetime', async () => {
    const es = await startOidcProvider({ clients: [BASIC_CLIENT], accounts: ACCOUNTS, signingAlg: 'ES256', idTokenTtlSeconds: 120 });
    try {
      const discovery = (await (await fetch(es.discoveryUrl)).json()) as Record<string, unknown>;
      expect(discovery['id_token_signing_alg_values_supported']).toEqual(['ES256']);
      const redirectUri = BASIC_CLIENT.redirectUris[0];
      const { code } = await es.authorize({ clientId: BASIC_CLIENT.clientId, redirectUri, scope: 'openid', username: 'alice', password: 'alice-password' });
      const tokens = await exchangeCode(code, redirectUri, BASIC_CLIENT, {}, es.tokenUrl);
      const idToken = String(tokens.body['id_token']);
      const { payload, protectedHeader } = await jwtVerify(idToken, createRemoteJWKSet(new URL(es.jwksUrl)), { issuer: es.issuer, audience: BASIC_CLIENT.clientId });
      expect(protectedHeader.alg).toBe('ES256');
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(120);
    } finally {
      await es.close();
    }
  });
});
