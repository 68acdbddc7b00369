// Both consoles on the default config: the Config views show which access controls guard each
// route, and refused requests reach the Events views (by type, with a rate; no token shown).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from './browser.js';
import { PORTICO_BIN, REPO_ROOT, startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { TmuxServer } from './tmux.js';

const WAIT_MS = 15_000;
const tmuxServer = new TmuxServer('access');
const FORGED = 'eyJhbGciOiJIUzI1NiJ9.eyJ0ZW5hbnQiOiJldmlsIn0.c2lnbmF0dXJlLWZvcmdlZA';

let browser: Browser;
let daemon: DaemonHandle;

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'console-web', 'dist', 'index.html'))) throw new Error('run `npm run build` first');
  browser = await launchChromium();
  daemon = await startDaemon();
});
afterEach(() => {
  tmuxServer.kill();
});
afterAll(async () => {
  await browser?.close();
  await daemon?.dispose();
});

/** Requests the gateway refuses: no token, then a forged one. */
async function refuse(): Promise<void> {
  for (let i = 0; i < 3; i++) expect((await fetch(`${daemon.gatewayUrl}/api/v1/ingest-jobs`, { headers: { 'X-Tenant-Id': 'acme' } })).status).toBe(401);
  expect((await fetch(`${daemon.gatewayUrl}/api/v1/ingest-jobs`, { headers: { Authorization: `Bearer ${FORGED}` } })).status).toBe(401);
}

function tmux(...args: string[]): string {
  return tmuxServer.run(...args);
}

describe('access control in the consoles', () => {
  it('web: the Config view shows the guards per route, Events the refusals', async (ctx) => {
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await page.goto(`${daemon.controlUrl}/`);
    await page.getByLabel('Control token').fill(daemon.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard views' }).getByRole('link', { name: 'Config' }).click();
    const routes = page.getByTestId('routes');
    await routes.waitFor({ timeout: WAIT_MS });
    const ingest = routes.locator('tr', { hasText: '/api/v1/**' });
    expect(await ingest.textContent()).toMatch(/\/api\/v1\/\*\*\s*endpoint\s*all\s*tenant_token \(jwt\)/);
    expect(await routes.locator('tr', { hasText: '/status' }).textContent()).toContain('open');
    expect(await page.getByTestId('access-controls').textContent()).toContain('tenant_token (jwt): Authorization bearer, HS256 key');

    await refuse();
    await page.getByRole('navigation', { name: 'Dashboard views' }).getByRole('link', { name: 'Events' }).click();
    await expect.poll(() => page.locator('body').textContent(), { timeout: WAIT_MS }).toContain('access denied: jwt_token_missing by access control "tenant_token" on GET /api/v1/**');
    expect(await page.locator('body').textContent()).toContain('access denied: jwt_token_invalid by access control "tenant_token" on GET /api/v1/**');
    expect(await page.content()).not.toContain(FORGED);
  });

  it('terminal: :config then a lists the routes with their guards; :events shows the refusals, in 80x24', async () => {
    const command = `NO_COLOR=1 '${process.execPath}' '${PORTICO_BIN}' tui --url ${daemon.controlUrl} --token-file '${join(daemon.dataDir, 'control.token')}'; sleep 600`;
    tmux('new-session', '-d', '-x', '80', '-y', '24', '-s', 'tui', '-c', REPO_ROOT, command);
    let last = '';
    const waitFor = (pattern: RegExp) => waitUntil(() => pattern.test((last = tmux('capture-pane', '-p', '-t', 'tui'))), WAIT_MS, () => `pane never matched ${pattern}:\n${last}`);
    await waitFor(/● connected/);
    tmux('send-keys', '-t', 'tui', ':config', 'Enter');
    await waitFor(/✓ applied \(start\)/);
    tmux('send-keys', '-t', 'tui', 'a');
    await waitFor(/routes \(\d+, \d+ open\) and their access controls/);
    expect(last).toContain('tenant_token (jwt): Authorization bearer, HS256 key');
    expect(last).toMatch(/\/api\/v1\/\*\*\s+endpoint\s+\*\s+tenant_token/);
    for (const line of last.replace(/\n$/, '').split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(80);

    await refuse();
    tmux('send-keys', '-t', 'tui', ':events', 'Enter');
    // The web test's refusals opened the window, so these may come as the summary line.
    await waitFor(/gateway\.access.*access denied( ×\d+ more)?: jwt_token_missing b/);
    expect(last).not.toContain(FORGED);
  });
});
