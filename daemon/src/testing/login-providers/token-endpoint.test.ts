import { afterEach, describe, expect, it } from 'vitest';
import { startTokenEndpoint, type TokenEndpointHandle, type TokenEndpointOptions } from './token-endpoint.js';

const CLIENTS = { 'svc:one': 'se cret+%', plain: 'plain-secret' };

let endpoint: TokenEndpointHandle | undefined;

afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

async function start(options: Partial<TokenEndpointOptions> = {}): Promise<TokenEndpointHandle> {
  endpoint = await startTokenEndpoint({ clients: CLIENTS, ...options });
  return endpoint;
}

function basic(clientId: string, secret: string): string {
  const encode = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}

async function requestToken(handle: TokenEndpointHandle, form: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(handle.tokenUrl, { method: 'POST', headers: { accept: 'application/json', ...headers }, body: new URLSearchParams(form) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describe('token endpoint', () => {
  it('issues a bearer token to a client authenticating with form-encoded Basic credentials', async () => {
    const handle = await start({ expiresIn: 600 });
    const answer = await requestToken(handle, { grant_type: 'client_credentials', scope: 'read write' }, { authorization: basic('svc:one', 'se cret+%') });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'read write' });
    expect(handle.issued).toEqual([answer.body['access_token']]);
    expect(handle.requests).toEqual([{ authMethod: 'basic', clientId: 'svc:one', grantType: 'client_credentials', scope: 'read write', accept: 'application/json', contentType: 'application/x-www-form-urlencoded;charset=UTF-8', body: 'grant_type=client_credentials&scope=read+write' }]);
  });

  it('accepts the credentials in the body and leaves scope out when none was asked for', async () => {
    const handle = await start();
    const answer = await requestToken(handle, { grant_type: 'client_credentials', client_id: 'plain', client_secret: 'plain-secret' });
    expect(answer.status).toBe(200);
    expect(answer.body['expires_in']).toBe(3600);
    expect(answer.body).not.toHaveProperty('scope');
    expect(handle.requests[0]).toMatchObject({ authMethod: 'post', clientId: 'plain', scope: null });
  });

  it('refuses a wrong secret, an unknown client and missing credentials with 401 invalid_client', async () => {
    const handle = await start();
    const wrong = await requestToken(handle, { grant_type: 'client_credentials' }, { authorization: basic('plain', 'nope') });
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await requestToken(handle, { grant_type: 'client_credentials', client_id: 'ghost', client_secret: 'x' })).status).toBe(401);
    expect((await requestToken(handle, { grant_type: 'client_credentials', client_id: 'plain' })).status).toBe(401);
    expect(handle.requests.map((request) => request.authMethod)).toEqual(['basic', 'post', 'none']);
    expect(handle.issued).toEqual([]);
  });

  it('answers another grant type with 400 unsupported_grant_type', async () => {
    const handle = await start();
    const answer = await requestToken(handle, { grant_type: 'password', client_id: 'plain', client_secret: 'plain-secret' });
    expect(answer).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
  });

  it('answers the injected failure until it is cleared', async () => {
    const handle = await start();
    handle.setFailure(503, 'maintenance');
    const failed = await fetch(handle.tokenUrl, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'plain', client_secret: 'plain-secret' }) });
    expect(failed.status).toBe(503);
    expect(await failed.text()).toBe('maintenance');
    handle.setFailure(null);
    expect((await requestToken(handle, { grant_type: 'client_credentials', client_id: 'plain', client_secret: 'plain-secret' })).status).toBe(200);
    expect(handle.requests).toHaveLength(2);
  });

  it('records a delayed request on arrival and answers it only after the delay', async () => {
    const handle = await start({ tokenDelayMs: 300 });
    let settled = false;
    const started = Date.now();
    const pending = requestToken(handle, { grant_type: 'client_credentials', client_id: 'plain', client_secret: 'plain-secret' }).finally(() => {
      settled = true;
    });
    await expect.poll(() => handle.requests.length).toBe(1);
    expect(settled).toBe(false);
    expect((await pending).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });
});

describe('protected resource', () => {
  it('answers a valid token with its path and refuses it after revokeAll', async () => {
    const handle = await start();
    const token = String((await requestToken(handle, { grant_type: 'client_credentials', client_id: 'plain', client_secret: 'plain-secret' })).body['access_token']);
    const url = handle.resourceUrl('/items/7?full=1');
    expect(url).toBe(`${handle.url}/resource/items/7?full=1`);

    const granted = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(granted.status).toBe(200);
    expect(await granted.json()).toEqual({ path: '/resource/items/7?full=1', token });

    handle.revokeAll();
    const refused = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(handle.resourceRequests).toEqual([
      { path: '/resource/items/7?full=1', authorization: `Bearer ${token}` },
      { path: '/resource/items/7?full=1', authorization: `Bearer ${token}` },
    ]);
  });

  it('refuses a request without a token and a token past expires_in', async () => {
    const handle = await start({ expiresIn: 2 });
    expect((await fetch(handle.resourceUrl('a'))).status).toBe(401);
    const token = String((await requestToken(handle, { grant_type: 'client_credentials', client_id: 'plain', client_secret: 'plain-secret' })).body['access_token']);
    expect((await fetch(handle.resourceUrl('a'), { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await fetch(handle.resourceUrl('a'), { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect(handle.resourceRequests[0]).toEqual({ path: '/resource/a', authorization: null });
  });
});
