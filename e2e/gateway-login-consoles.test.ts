// Both consoles against a real daemon whose gateway signs users in at a real OpenID Provider on
// loopback: the Config views show the oidc control with its provider and ok state, then, with
// the provider down and a login attempted past the configuration's TTL, its error and that the
// cached configuration still serves. The client secret appears on neither screen.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type OidcProviderHandle } from '../daemon/src/testing/login-providers/index.js';
import { launchChromium, openPage } from './browser.js';
import { PORTICO_BIN, REPO_ROOT, startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { TmuxServer } from './tmux.js';

const WAIT_MS = 20_000;
const tmuxServer = new TmuxServer('login');
const CLIENT_SECRET = 'e2e-oidc-client-s3cret-4b9e';
/** Set to a directory to keep screenshots of the card and captures of the pane in each state. */
const SHOTS = process.env['PORTICO_E2E_SHOTS'];

let browser: Browser;
let op: OidcProviderHandle;
let daemon: DaemonHandle;
let configDir: string;

function config(discoveryUrl: string): string {
  return `server "portico" {
  hosts = ["*:\${env.PORTICO_GATEWAY_PORT}"]

  endpoint "/login" {
    response {
      status = 303
      headers = {
        location   = oauth2_authorization_url("login")
        set-cookie = "pkcecv=\${oauth2_verifier()}; HttpOnly; Path=/oidc/callback"
      }
    }
  }

  endpoint "/oidc/callback" {
    access_control = ["login"]
    response {
      json_body = request.context.login.id_token_claims
    }
  }
}

definitions {
  oidc "login" {
    configuration_url = "${discoveryUrl}"
    configuration_ttl = "1s"
    client_id         = "portico"
    client_secret     = "${CLIENT_SECRET}"
    redirect_uri      = "/oidc/callback"
    verifier_value    = request.cookies.pkcecv
  }
}
`;
}

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'console-web', 'dist', 'index.html'))) throw new Error('run `npm run build` first');
  browser = await launchChromium();
  op = await startOidcProvider({
    // No sign-in happens here: the redirect URI is registered only because a client needs one.
    clients: [{ clientId: 'portico', clientSecret: CLIENT_SECRET, redirectUris: ['http://127.0.0.1/oidc/callback'], tokenEndpointAuthMethod: 'client_secret_basic' }],
    accounts: { alice: { password: 'alice-pw', claims: { name: 'Alice Example' } } },
  });
  configDir = mkdtempSync(join(tmpdir(), 'portico-e2e-login-'));
  const file = join(configDir, 'portico.hcl');
  writeFileSync(file, config(op.discoveryUrl));
  daemon = await startDaemon({ args: ['-f', file] });
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  tmuxServer.kill();
  await browser?.close();
  await daemon?.dispose();
  await op?.close();
  if (configDir) rmSync(configDir, { recursive: true, force: true });
});

function tmux(...args: string[]): string {
  return tmuxServer.run(...args);
}

let pane = '';
/** Waits until the TUI's pane matches, doing `meanwhile` before each look. */
async function paneMatches(pattern: RegExp, meanwhile: () => Promise<unknown> = async () => undefined): Promise<string> {
  await waitUntil(
    async () => {
      await meanwhile();
      return pattern.test((pane = tmux('capture-pane', '-p', '-t', 'tui')));
    },
    WAIT_MS,
    () => `pane never matched ${pattern}:\n${pane}\n--- daemon ---\n${daemon.logs().slice(-3000)}`,
  );
  return pane;
}

function fits80x24(text: string): void {
  const lines = text.replace(/\n$/, '').split('\n');
  expect(lines.length).toBeLessThanOrEqual(24);
  for (const line of lines) expect(Array.from(line).length, line).toBeLessThanOrEqual(80);
}

async function openConfig(page: Page): Promise<void> {
  await page.goto(`${daemon.controlUrl}/`);
  await page.getByLabel('Control token').fill(daemon.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Dashboard views' }).getByRole('link', { name: 'Config' }).click();
  await page.getByTestId('login-controls').waitFor({ timeout: WAIT_MS });
}

/** The login control's row of the web card as a reader sees it, runs of white space as one space. */
async function webRow(page: Page): Promise<string> {
  return (await page.getByTestId('login-controls').locator('tr[data-login="login"]').innerText()).replace(/\s+/g, ' ').trim();
}

let lastAttempt = 0;
/** What a login attempt does: the gateway builds the authorization URL from the provider's configuration. At most two a second. */
async function attemptLogin(): Promise<void> {
  if (Date.now() - lastAttempt < 500) return;
  lastAttempt = Date.now();
  const res = await fetch(`${daemon.gatewayUrl}/login`, { redirect: 'manual' });
  await res.arrayBuffer();
}

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('login controls in the consoles', () => {
  it('terminal (80x24) and web: the oidc control with its provider, ok since the configuration was fetched', async (ctx) => {
    const command = `NO_COLOR=1 '${process.execPath}' '${PORTICO_BIN}' tui --url ${daemon.controlUrl} --token-file '${join(daemon.dataDir, 'control.token')}'; sleep 600`;
    tmux('new-session', '-d', '-x', '80', '-y', '24', '-s', 'tui', '-c', REPO_ROOT, command);
    await paneMatches(/● connected/);
    tmux('send-keys', '-t', 'tui', ':config', 'Enter');
    await paneMatches(/✓ applied \(start\)/);
    tmux('send-keys', '-t', 'tui', 'a');
    const ok = await paneMatches(/● ok · configuration fetched at \d\d:\d\d:\d\d/);
    expect(ok).toContain(`   login (oidc): ${op.discoveryUrl}\n     ● ok · configuration fetched at`);
    expect(ok).toMatch(/\/oidc\/callback\s+endpoint\s+\*\s+login\n/);
    expect(ok).toMatch(/\/login\s+endpoint\s+\*\s+open/);
    expect(ok).not.toContain(CLIENT_SECRET);
    fits80x24(ok);
    if (SHOTS) writeFileSync(join(SHOTS, 'tui-login-ok.txt'), ok);

    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await openConfig(page);
    expect(await webRow(page)).toMatch(new RegExp(`^oidc login ${escaped(op.discoveryUrl)} OpenID Connect .*client "portico".* ● ok configuration fetched at \\d\\d:\\d\\d:\\d\\d$`));
    expect(await page.getByTestId('routes').locator('tr', { hasText: '/oidc/callback' }).textContent()).toContain('login (oidc)');
    expect(await page.content()).not.toContain(CLIENT_SECRET);
    if (SHOTS) await page.getByTestId('login-controls').locator('xpath=ancestor::section').screenshot({ path: join(SHOTS, 'web-login-ok.png') });
  });

  it('terminal and web: with the provider down, a login past the TTL shows its error and that the cached configuration serves, live', async (ctx) => {
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await openConfig(page);
    expect(await webRow(page)).toContain('ok configuration fetched at');

    op.setDown(true);
    const failed = /✗ failed at \d\d:\d\d:\d\d, using cached configuration:/;
    // Each attempt past the TTL refreshes in the background; the TUI re-reads within 5 s.
    const text = await paneMatches(failed, attemptLogin);
    expect(text.replace(/\n {5,}/g, ' ')).toContain(`using cached configuration: ${op.discoveryUrl} answered 503`);
    expect(text).toContain(`   login (oidc): ${op.discoveryUrl}\n     ✗ failed at`);
    expect(text).not.toContain(CLIENT_SECRET);
    fits80x24(text);
    if (SHOTS) writeFileSync(join(SHOTS, 'tui-login-error.txt'), text);
    tmux('send-keys', '-t', 'tui', 'a');
    await paneMatches(/secrets? hidden/);
    tmux('send-keys', '-t', 'tui', 'G');
    const source = await paneMatches(/client_secret\s+= "\*\*\*"/);
    expect(source).not.toContain(CLIENT_SECRET);

    // The page was not reloaded: the card re-reads by itself.
    await expect.poll(() => webRow(page), { timeout: WAIT_MS }).toMatch(/✗ failed at \d\d:\d\d:\d\d · using cached configuration/);
    expect(await webRow(page)).toContain(`${op.discoveryUrl} answered 503`);
    const error = page.getByTestId('login-controls').locator('.login-error');
    expect(await error.textContent()).toMatch(new RegExp(`^${escaped(op.discoveryUrl)} answered 503`));
    expect(await page.getByTestId('config-source').textContent()).toMatch(/client_secret\s+= "\*\*\*"/);
    expect(await page.content()).not.toContain(CLIENT_SECRET);
    if (SHOTS) await page.getByTestId('login-controls').locator('xpath=ancestor::section').screenshot({ path: join(SHOTS, 'web-login-error.png') });
    // The login itself still works from the cached configuration.
    expect((await fetch(`${daemon.gatewayUrl}/login`, { redirect: 'manual' })).status).toBe(303);
  });
});
