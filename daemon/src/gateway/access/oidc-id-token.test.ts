import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { s256 } from './oauth2/pkce.js';
import { accessLines, startAccessGateway } from './testing/access-gateway.js';
import { endpointHcl } from './testing/endpoint-hcl.js';

/**
 * ID token checks need tokens no honest provider issues: a small OpenID Provider on
 * loopback whose token endpoint answers the ID token a test made (signed with its real
 * key set, or another key), and whose userinfo names the subject the test chose.
 */
interface Forger {
  url: string;
  idToken: string;
  userinfoSub: string;
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const { privateKey, publicKey } = await generateKeyPair('RS256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
const stranger = await generateKeyPair('RS256');

async function startForger(): Promise<Forger> {
  const forger = { url: '', idToken: '', userinfoSub: 'alice', close: async () => undefined } as Forger;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', forger.url).pathname;
    const json = (body: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === '/.well-known/openid-configuration') json({ issuer: forger.url, authorization_endpoint: `${forger.url}/auth`, token_endpoint: `${forger.url}/token`, userinfo_endpoint: `${forger.url}/me`, jwks_uri: `${forger.url}/jwks` });
    else if (path === '/jwks') json({ keys: [jwk] });
    else if (path === '/token') req.resume().on('end', () => json({ access_token: 'at', token_type: 'Bearer', expires_in: 60, id_token: forger.idToken }));
    else if (path === '/me') json({ sub: forger.userinfoSub });
    else res.writeHead(404).end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  forger.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return forger;
}

const VERIFIER = 'v'.repeat(43);

function token(forger: Forger, claims: Record<string, unknown>, { key = privateKey, kid = 'k1', ttl = 60 }: { key?: typeof privateKey; kid?: string; ttl?: number } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: forger.url, aud: 'portico', sub: 'alice', iat: now, exp: now + ttl, nonce: s256(VERIFIER), ...claims })
    .setProtectedHeader({ alg: 'RS256', kid })
    .sign(key);
}

describe('oidc ID token validation', () => {
  it('refuses ID tokens with the wrong issuer, audience, azp, nonce, signature, expiry or a subject userinfo does not confirm', async () => {
    const forger = await startForger();
    const gw = await startAccessGateway({
      'portico.hcl': `server {
  hosts = ["*:0"]
${endpointHcl('/cb', 'json_body = request.context.op.id_token_claims', ['op'])}
}
definitions {
  oidc "op" {
    configuration_url = "${forger.url}/.well-known/openid-configuration"
    client_id = "portico"
    client_secret = "s"
    redirect_uri = "/cb"
    verifier_method = "nonce"
    verifier_value = request.cookies.v
  }
}
`,
    });
    const call = async (): Promise<Response> => fetch(gw.url('/cb?code=c'), { headers: { cookie: `v=${VERIFIER}` } });
    forger.idToken = await token(forger, {});
    const ok = await call();
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ sub: 'alice', aud: 'portico' });

    const cases: [string, Promise<string>, RegExp, string?][] = [
      ['issuer', token(forger, { iss: 'https://evil.example' }), /invalid ID token: .*iss/],
      ['audience', token(forger, { aud: 'someone-else' }), /invalid ID token: .*aud/],
      ['azp', token(forger, { aud: ['portico', 'other'], azp: 'other' }), /azp "other" is not the client id/],
      ['several audiences without azp', token(forger, { aud: ['portico', 'other'] }), /several audiences and no azp/],
      ['nonce', token(forger, { nonce: s256('another') }), /nonce is not the hash of verifier_value/],
      ['signature', token(forger, {}, { key: stranger.privateKey }), /invalid ID token: signature verification failed/],
      ['expired', token(forger, {}, { ttl: -120 }), /invalid ID token: .*exp/],
      ['userinfo subject', token(forger, {}), /subject mismatch/, 'mallory'],
    ];
    for (const [name, made, message, userinfoSub] of cases) {
      forger.idToken = await made;
      forger.userinfoSub = userinfoSub ?? 'alice';
      const res = await call();
      expect(res.status, name).toBe(403);
      expect(accessLines(gw).at(-1)?.['error_type'], name).toBe('oauth2');
      expect(String(accessLines(gw).at(-1)?.['message']), name).toMatch(message);
    }
  });
});
