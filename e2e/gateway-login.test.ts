import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, startSamlIdp, type OidcProviderHandle, type SamlIdp } from '../daemon/src/testing/login-providers/index.js';
import { launchChromium, openPage } from './browser.js';
import { freePort, REPO_ROOT, startDaemon, type DaemonHandle } from './harness.js';

const ALICE = { password: 'alice-password', name: 'Alice Example', email: 'alice@example.test', groups: ['staff', 'admins'] };

/**
 * The runnable examples (config/examples/oidc.hcl and saml.hcl) through the daemon, signed
 * into by Chromium: the protected page sends the browser to the provider's login form, the
 * provider sends it back, and the page shows the user's claims.
 */
describe('federated login in a browser', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), 'portico-e2e-login-'));
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('oidc (config/examples/oidc.hcl)', () => {
    let op: OidcProviderHandle;
    let daemon: DaemonHandle;
    let port: number;
    beforeAll(async () => {
      port = await freePort();
      op = await startOidcProvider({
        clients: [{ clientId: 'portico-example', clientSecret: 'e2e-oidc-secret', redirectUris: [`http://127.0.0.1:${port}/oidc/callback`], tokenEndpointAuthMethod: 'client_secret_basic' }],
        accounts: { alice: { password: ALICE.password, claims: { name: ALICE.name, email: ALICE.email, groups: ALICE.groups } } },
      });
      daemon = await startDaemon({
        args: ['-f', join(REPO_ROOT, 'config', 'examples', 'oidc.hcl')],
        env: { PORTICO_GATEWAY_PORT: String(port), EXAMPLE_OIDC_CONFIGURATION_URL: op.discoveryUrl, EXAMPLE_OIDC_CLIENT_SECRET: 'e2e-oidc-secret', EXAMPLE_SESSION_KEY: 'e2e-session-key-0123456789abcdef0123' },
      });
    });
    afterAll(async () => {
      await daemon?.dispose();
      await op?.close();
    });

    it('protected page → provider login form → back with a session → the page shows the claims', async (test) => {
      const page = await openPage(browser, test);
      await page.goto(`http://127.0.0.1:${port}/`);
      expect(new URL(page.url()).origin).toBe(op.issuer);
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill('wrong');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Wrong username or password/);
      await page.getByLabel('Password').fill(ALICE.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`http://127.0.0.1:${port}/`);
      const shown = JSON.parse((await page.textContent('body')) ?? '{}') as { signed_in_as: string; claims: Record<string, unknown> };
      expect(shown).toMatchObject({ signed_in_as: 'Alice Example', claims: { sub: 'alice', email: 'alice@example.test', groups: ['staff', 'admins'] } });
      // The callback cleared the PKCE verifier's cookie (it served its one exchange) and set the session.
      const cookies = (await page.context().cookies(`http://127.0.0.1:${port}/oidc/callback`)).map((c) => c.name);
      expect(cookies).toContain('session');
      expect(cookies).not.toContain('pkcecv');
      // The session cookie carries the next request without the provider.
      const before = op.count('/token');
      await page.reload();
      expect(await page.textContent('body')).toContain('Alice Example');
      expect(op.count('/token')).toBe(before);
      // The access line names the user; the code and the client secret never reach the log.
      await expect.poll(() => daemon.logs()).toMatch(/ alice \[.*"GET http:\/\/127\.0\.0\.1:\d+\/oidc\/callback\?.*code=\*\*\*/);
      expect(daemon.logs()).not.toContain('e2e-oidc-secret');
      await expectSignOut(page, port, op.issuer);
    });

    it('a callback that did not start in this browser (no verifier cookie) is refused by the example\'s error handler', async (test) => {
      const page = await openPage(browser, test);
      const res = await page.goto(`http://127.0.0.1:${port}/oidc/callback?code=forged`);
      expect(res?.status()).toBe(403);
      expect(await page.textContent('body')).toContain('Sign-in failed');
    });
  });

  describe('saml (config/examples/saml.hcl)', () => {
    let idp: SamlIdp;
    let daemon: DaemonHandle;
    let port: number;
    beforeAll(async () => {
      port = await freePort();
      idp = await startSamlIdp({ users: { alice: { password: ALICE.password, attributes: { displayName: ALICE.name, email: ALICE.email, groups: ALICE.groups } } } });
      const metadata = join(dir, 'idp-metadata.xml');
      idp.writeMetadata(metadata);
      daemon = await startDaemon({
        args: ['-f', join(REPO_ROOT, 'config', 'examples', 'saml.hcl')],
        env: { PORTICO_GATEWAY_PORT: String(port), EXAMPLE_SAML_IDP_METADATA: metadata, EXAMPLE_SESSION_KEY: 'e2e-session-key-0123456789abcdef0123' },
      });
    });
    afterAll(async () => {
      await daemon?.dispose();
      await idp?.close();
    });

    it('protected page → IdP login form → signed assertion posted back → the page shows the attributes', async (test) => {
      const page = await openPage(browser, test);
      await page.goto(`http://127.0.0.1:${port}/`);
      expect(new URL(page.url()).origin).toBe(idp.url);
      await page.getByLabel(/user/i).fill('alice');
      await page.getByLabel(/password/i).fill(ALICE.password);
      await page.getByRole('button', { name: /sign in/i }).click();
      await page.waitForURL(`http://127.0.0.1:${port}/`);
      const shown = JSON.parse((await page.textContent('body')) ?? '{}') as { signed_in_as: string; claims: Record<string, unknown> };
      expect(shown).toMatchObject({ signed_in_as: 'Alice Example', claims: { sub: 'alice', email: 'alice@example.test', groups: ['staff', 'admins'] } });
      await expectSignOut(page, port, idp.url);
    });

    it('refuses the same assertion posted again (replay)', async () => {
      const login = await idp.login(`${idp.ssoUrl}?SAMLRequest=${encodeURIComponent(await authnRequestFrom(port))}`, 'alice', ALICE.password);
      const post = () => fetch(login.acsUrl, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ SAMLResponse: login.samlResponse }).toString() });
      expect((await post()).status).toBe(303);
      const replayed = await post();
      expect(replayed.status).toBe(403);
      expect(await replayed.text()).toContain('Sign-in failed');
      await expect.poll(() => daemon.logs()).toMatch(/"POST [^"]*\/saml\/acs" 403 .*error_type=saml message=".*already used to log in/);
    });
  });
});

/**
 * /logout clears the session: the page says so, and the protected page, asked with the
 * browser's cookies, sends it to the provider again (not followed: a provider that still has
 * its own session would sign the browser straight back in).
 */
async function expectSignOut(page: Page, port: number, providerOrigin: string): Promise<void> {
  await page.goto(`http://127.0.0.1:${port}/logout`);
  expect(page.url()).toBe(`http://127.0.0.1:${port}/signed-out`);
  expect(await page.textContent('body')).toContain('Signed out');
  expect((await page.context().cookies(`http://127.0.0.1:${port}/`)).map((c) => c.name)).not.toContain('session');
  const again = await page.request.get(`http://127.0.0.1:${port}/`, { maxRedirects: 0 });
  expect(again.status()).toBe(303);
  expect(new URL(again.headers()['location'] ?? '').origin).toBe(providerOrigin);
}

/** The SAMLRequest the gateway's protected page redirects to (what a browser would carry to the IdP). */
async function authnRequestFrom(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { redirect: 'manual' });
  return new URL(res.headers.get('location') ?? '').searchParams.get('SAMLRequest') ?? '';
}
