import { afterEach, describe, expect, it } from 'vitest';
import { startTokenEndpoint, type TokenEndpointHandle } from '../../testing/login-providers/index.js';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';

const providers: TokenEndpointHandle[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.close()));
});

async function tokenEndpoint(options: { expiresIn?: number; tokenDelayMs?: number } = {}): Promise<TokenEndpointHandle> {
  const handle = await startTokenEndpoint({ clients: { portico: 'pass word' }, ...options });
  providers.push(handle);
  return handle;
}

/** A gateway whose `/r/**` proxies to the token endpoint's resource with a client credentials token. */
function config(tokens: TokenEndpointHandle, oauth2: string): string {
  return `server {
  hosts = ["*:0"]
  endpoint "/r/**" {
    proxy {
      backend = "api"
    }
  }
  endpoint "/send" {
    request {
      backend = "api"
      method = "POST"
      json_body = { n = 1 }
    }
  }
}
definitions {
  backend "api" {
    origin = "${new URL(tokens.url).origin}"
    path = "/resource/**"
    oauth2 {
      grant_type = "client_credentials"
      token_endpoint = "${tokens.tokenUrl}"
      client_id = "portico"
      client_secret = "pass word"
${oauth2}
    }
  }
}
`;
}

describe('backend oauth2 (client credentials)', () => {
  it('fetches one token, sends it as a bearer token, and reuses it until it expires', async () => {
    const tokens = await tokenEndpoint();
    const gw = await startAccessGateway({ 'portico.hcl': config(tokens, '      scope = "read write"') });
    for (const path of ['/r/a', '/r/b', '/r/c']) {
      const res = await fetch(gw.url(path), { headers: { authorization: 'Bearer client-token' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ token: tokens.issued[0] });
    }
    expect(tokens.requests).toHaveLength(1);
    // client_secret_basic by default, with the parts form-encoded (RFC 6749 §2.3.1); the client's own Authorization is replaced.
    expect(tokens.requests[0]).toMatchObject({ authMethod: 'basic', clientId: 'portico', grantType: 'client_credentials', scope: 'read write', accept: 'application/json', contentType: 'application/x-www-form-urlencoded' });
    expect(tokens.resourceRequests.map((r) => r.authorization)).toEqual([`Bearer ${tokens.issued[0]}`, `Bearer ${tokens.issued[0]}`, `Bearer ${tokens.issued[0]}`]);
  });

  it('sends the credentials in the body with client_secret_post', async () => {
    const tokens = await tokenEndpoint();
    const gw = await startAccessGateway({ 'portico.hcl': config(tokens, '      token_endpoint_auth_method = "client_secret_post"') });
    expect((await fetch(gw.url('/r/x'))).status).toBe(200);
    expect(tokens.requests[0]).toMatchObject({ authMethod: 'post', clientId: 'portico' });
    expect(tokens.requests[0]?.body).toBe('client_id=portico&client_secret=pass+word&grant_type=client_credentials');
  });

  it('asks once for concurrent requests (one token request in flight)', async () => {
    const tokens = await tokenEndpoint({ tokenDelayMs: 300 });
    const gw = await startAccessGateway({ 'portico.hcl': config(tokens, '') });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => fetch(gw.url(`/r/${i}`))));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(tokens.requests).toHaveLength(1);
  });

  it('renews a token shortly before its expires_in runs out', async () => {
    // 1 s lifetime: renewed 10% (100 ms) early.
    const tokens = await tokenEndpoint({ expiresIn: 1 });
    const gw = await startAccessGateway({ 'portico.hcl': config(tokens, '') });
    expect((await fetch(gw.url('/r/1'))).status).toBe(200);
    expect((await fetch(gw.url('/r/2'))).status).toBe(200);
    expect(tokens.requests).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 950));
    expect((await fetch(gw.url('/r/3'))).status).toBe(200);
    expect(tokens.requests).toHaveLength(2);
    expect(tokens.resourceRequests.at(-1)?.authorization).toBe(`Bearer ${tokens.issued[1]}`);
  });

  it('on a 401 from the resource fetches a new token and retries, up to retries times, with the body again', async () => {
    const tokens = await tokenEndpoint();
    const gw = await startAccessGateway({ 'portico.hcl': config(tokens, '      retries = 1') });
    expect((await fetch(gw.url('/send'))).status).toBe(200);
    tokens.revokeAll();
    const res = await fetch(gw.url('/r/after-revoke'), { method: 'POST', body: 'payload' });
    expect(res.status).toBe(200);
    expect(tokens.requests).toHaveLength(2);
    expect(tokens.resourceRequests.slice(-2).map((r) => r.authorization)).toEqual([`Bearer ${tokens.issued[0]}`, `Bearer ${tokens.issued[1]}`]);

    const none = await startAccessGateway({ 'portico.hcl': config(tokens, '      retries = 0') });
    expect((await fetch(none.url('/r/x'))).status).toBe(200);
    tokens.revokeAll();
    // retries = 0: the resource's 401 goes to the client as it is.
    expect((await fetch(none.url('/r/y'))).status).toBe(401);
  });

  it('answers beta_backend_token_request (502) when the token endpoint refuses, and an error_handler can catch it', async () => {
    const tokens = await tokenEndpoint();
    tokens.setFailure(400, '{"error":"invalid_scope"}');
    const source = config(tokens, '').replace('  endpoint "/send" {', '  endpoint "/handled" {\n    proxy {\n      backend = "api"\n    }\n    error_handler "beta_backend_token_request" {\n      response {\n        status = 503\n        body = "token service down"\n      }\n    }\n  }\n  endpoint "/send" {');
    const gw = await startAccessGateway({ 'portico.hcl': source });
    const res = await fetch(gw.url('/r/x'));
    expect(res.status).toBe(502);
    expect(res.headers.get('gateway-error')).toBe('backend error');
    const line = accessLines(gw).at(-1);
    expect(line).toMatchObject({ error_type: 'beta_backend_token_request' });
    expect(String(line?.['message'])).toContain('invalid_scope');
    expect(tokens.resourceRequests).toHaveLength(0);
    const handled = await fetch(gw.url('/handled'));
    expect(handled.status).toBe(503);
    expect(await handled.text()).toBe('token service down');
    // Nothing of the secret reaches the logs.
    expect(JSON.stringify(gw.records)).not.toContain('pass word');
    expect(JSON.stringify(gw.records)).not.toContain('pass+word');
  });

  it('lets a backend block in oauth2 change the token request (its Accept header) through its modifiers', async () => {
    const tokens = await tokenEndpoint();
    const gw = await startAccessGateway({ 'portico.hcl': config(tokens, `      backend {\n        origin = "${new URL(tokens.url).origin}"\n        set_request_headers = { accept = "application/json; charset=utf-8" }\n      }`) });
    expect((await fetch(gw.url('/r/x'))).status).toBe(200);
    expect(tokens.requests[0]?.accept).toBe('application/json; charset=utf-8');
  });

  it("names a token backend's custom_log_fields that fail to evaluate in its backend line (custom_error), and still gets the token", async () => {
    const tokens = await tokenEndpoint();
    const origin = new URL(tokens.url).origin;
    const gw = await startAccessGateway({ 'portico.hcl': config(tokens, `      backend {\n        origin = "${origin}"\n        custom_log_fields = { n = to_number(backend_request.headers.accept) }\n      }`) });
    expect((await fetch(gw.url('/r/x'))).status).toBe(200);
    const tokenLine = gw.records.find((r) => r.type === 'gateway_backend' && r['handler'] === 'oauth2:client_credentials');
    expect(tokenLine).toMatchObject({ status: 200, custom_error: expect.stringMatching(/portico\.hcl:\d+,\d+.*cannot convert "application\/json" to number/) });
  });
});

