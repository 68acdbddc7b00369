import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExampleArgs, startExampleProviders, type ExampleProviders } from './main.js';

describe('parseExampleArgs', () => {
  it('defaults to ports 9411, 9412 and 9413 and the example metadata path', () => {
    expect(parseExampleArgs([])).toEqual({ oidcPort: 9411, samlPort: 9412, tokenPort: 9413, samlMetadataOut: resolve('data/examples/saml-idp-metadata.xml') });
  });

  it('takes the flags and refuses a port that is not one', () => {
    expect(parseExampleArgs(['--oidc-port', '0', '--saml-port', '1', '--token-port', '2', '--saml-metadata-out', '/tmp/m.xml'])).toEqual({ oidcPort: 0, samlPort: 1, tokenPort: 2, samlMetadataOut: '/tmp/m.xml' });
    expect(() => parseExampleArgs(['--oidc-port', 'http'])).toThrow('--oidc-port must be a port number');
    expect(() => parseExampleArgs(['--oidc-port', '70000'])).toThrow('--oidc-port must be a port number');
  });
});

describe('startExampleProviders', () => {
  let folder: string;
  let providers: ExampleProviders;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'login-providers-'));
    providers = await startExampleProviders({ oidcPort: 0, samlPort: 0, tokenPort: 0, samlMetadataOut: join(folder, 'nested', 'idp.xml') });
  });

  afterAll(async () => {
    await providers.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('writes the SAML IdP metadata into a folder it creates', () => {
    const metadata = readFileSync(join(folder, 'nested', 'idp.xml'), 'utf8');
    expect(metadata).toContain(`entityID="${providers.saml.entityId}"`);
    expect(providers.saml.entityId.startsWith(providers.saml.url)).toBe(true);
  });

  it('prints one line per provider with its URL and users', () => {
    expect(providers.summary).toHaveLength(3);
    expect(providers.summary[0]).toContain(providers.oidc.issuer);
    expect(providers.summary[1]).toContain(providers.saml.url);
    expect(providers.summary[2]).toContain(providers.token.tokenUrl);
    expect(providers.summary.slice(0, 2).every((line) => line.includes('alice/alice-password') && line.includes('bob/bob-password'))).toBe(true);
  });

  it('lets alice sign in to portico-example at the OpenID Provider', async () => {
    const redirectUri = 'http://127.0.0.1:8080/oidc/callback';
    const { code } = await providers.oidc.authorize({ clientId: 'portico-example', redirectUri, scope: 'openid profile', username: 'alice', password: 'alice-password' });
    const response = await fetch(providers.oidc.tokenUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('portico-example:example-secret').toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
    });
    expect(response.status).toBe(200);
    const idToken = String(((await response.json()) as Record<string, unknown>)['id_token']);
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: 'alice', name: 'Alice Example', groups: ['staff', 'admins'] });
  });

  it('lets bob sign in at the OpenID Provider and portico-example get a client credentials token', async () => {
    await expect(providers.oidc.authorize({ clientId: 'portico-example', redirectUri: 'http://localhost:8080/oidc/callback', scope: 'openid', username: 'bob', password: 'bob-password' })).resolves.toHaveProperty('code');
    const token = await fetch(providers.token.tokenUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('portico-example:example-secret').toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(token.status).toBe(200);
  });
});
