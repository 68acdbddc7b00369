import { afterEach, describe, expect, it } from 'vitest';
import { startOidcProvider, startTokenEndpoint, type OidcProviderHandle, type TokenEndpointHandle } from '../../testing/login-providers/index.js';
import { freePort } from '../http/testing/test-gateway.js';
import { accessLines, startAccessGateway, type AccessGateway } from './testing/access-gateway.js';
import { callback, signIn, startLogin } from './testing/code-flow.js';

const closers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c.close()));
});

const backendOf = (gw: AccessGateway, handler: string): unknown => gw.records.find((r) => r.type === 'gateway_backend' && r['handler'] === handler)?.['backend'];

/** Signs alice in through `/login` → provider → `/cb`; returns the callback's status. */
async function login(op: OidcProviderHandle, port: number): Promise<number> {
  const { authorization, verifier } = await startLogin(port, 'v');
  return (await callback(port, await signIn(op, authorization, 'alice', 'pw'), 'v', verifier)).status;
}

async function provider(port: number): Promise<OidcProviderHandle> {
  const op = await startOidcProvider({ clients: [{ clientId: 'portico', clientSecret: 'sec', redirectUris: [`http://127.0.0.1:${port}/cb`], tokenEndpointAuthMethod: 'client_secret_basic' }], accounts: { alice: { password: 'pw', claims: { name: 'Alice' } } } });
  closers.push(op);
  return op;
}

describe('login controls: backends, key set TTL and log fields', () => {
  it('oidc: every request goes through the named backend; the key set is fetched again after jwks_ttl; custom_log_fields read the grant', async () => {
    const port = await freePort();
    const op = await provider(port);
    const gw = await startAccessGateway({
      'portico.hcl': `server {
  hosts = ["*:${port}"]
  endpoint "/login" {
    response {
      status = 303
      headers = { location = oauth2_authorization_url("op"), set-cookie = "v=\${oauth2_verifier()}" }
    }
  }
  endpoint "/cb" {
    access_control = ["op"]
    response {
      body = "ok"
    }
  }
}
definitions {
  backend "idp" {
    origin = "${op.url}"
  }
  oidc "op" {
    configuration_url = "${op.discoveryUrl}"
    backend = "idp"
    jwks_ttl = "1s"
    jwks_max_stale = "0s"
    client_id = "portico"
    client_secret = "sec"
    redirect_uri = "/cb"
    verifier_value = request.cookies.v
    custom_log_fields = { login_sub = request.context.op.id_token_claims.sub }
  }
}
`,
    });
    expect(await login(op, port)).toBe(200);
    for (const purpose of ['configuration', 'jwks', 'token', 'userinfo']) expect(backendOf(gw, `oidc:${purpose}:op`), purpose).toBe('idp');
    expect(accessLines(gw).at(-1)).toMatchObject({ status: 200, custom: { login_sub: 'alice' } });
    expect(op.count(op.jwksUrl)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await login(op, port)).toBe(200);
    expect(op.count(op.jwksUrl)).toBe(2);
  });

  it('beta_oauth2 and backend oauth2: the token request goes through the named backend', async () => {
    const port = await freePort();
    const op = await provider(port);
    const tokens: TokenEndpointHandle = await startTokenEndpoint({ clients: { portico: 'sec' } });
    closers.push(tokens);
    const gw = await startAccessGateway({
      'portico.hcl': `server {
  hosts = ["*:${port}"]
  endpoint "/login" {
    response {
      status = 303
      headers = { location = oauth2_authorization_url("as"), set-cookie = "v=\${oauth2_verifier()}" }
    }
  }
  endpoint "/cb" {
    access_control = ["as"]
    response {
      body = "ok"
    }
  }
  endpoint "/r" {
    proxy {
      backend = "api"
    }
  }
}
definitions {
  backend "as_backend" {
    origin = "${op.url}"
  }
  beta_oauth2 "as" {
    backend = "as_backend"
    authorization_endpoint = "${op.authorizationUrl}"
    token_endpoint = "${op.tokenUrl}"
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
}
`,
    });
    expect(await login(op, port)).toBe(200);
    expect(backendOf(gw, 'beta_oauth2:token:as')).toBe('as_backend');
    expect(accessLines(gw).find((r) => String(r['url']).includes('/cb'))?.['custom']).toEqual({ token_type: 'Bearer' });
    expect((await fetch(`http://127.0.0.1:${port}/r`)).status).toBe(200);
    expect(backendOf(gw, 'oauth2:client_credentials')).toBe('token_backend');
  });

  it('oidc: configuration_backend, jwks_uri_backend and userinfo_backend each take their request', async () => {
    const port = await freePort();
    const op = await provider(port);
    const gw = await startAccessGateway({
      'portico.hcl': `server {
  hosts = ["*:${port}"]
  endpoint "/login" {
    response {
      status = 303
      headers = { location = oauth2_authorization_url("op"), set-cookie = "v=\${oauth2_verifier()}" }
    }
  }
  endpoint "/cb" {
    access_control = ["op"]
    response {
      body = "ok"
    }
  }
}
definitions {
  backend "conf" { origin = "${op.url}" }
  backend "keys" { origin = "${op.url}" }
  backend "info" { origin = "${op.url}" }
  oidc "op" {
    configuration_url = "${op.discoveryUrl}"
    configuration_backend = "conf"
    jwks_uri_backend = "keys"
    userinfo_backend = "info"
    client_id = "portico"
    client_secret = "sec"
    redirect_uri = "/cb"
    verifier_value = request.cookies.v
  }
}
`,
    });
    expect(await login(op, port)).toBe(200);
    expect([backendOf(gw, 'oidc:configuration:op'), backendOf(gw, 'oidc:jwks:op'), backendOf(gw, 'oidc:userinfo:op')]).toEqual(['conf', 'keys', 'info']);
    expect(backendOf(gw, 'oidc:token:op')).toMatch(/^anonymous_/);
  });
});
