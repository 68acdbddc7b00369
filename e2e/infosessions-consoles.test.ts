// The Infosessions and API keys views in both consoles, against a real daemon serving the sample:
// the web dashboard in Chromium (Playwright) and `portico tui` in an 80x24 tmux pane.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from './browser.js';
import { PORTICO_BIN, REPO_ROOT, startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { TmuxServer } from './tmux.js';

const WAIT_MS = 15_000;
const tmuxServer = new TmuxServer('is');

let daemon: DaemonHandle;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'console-web', 'dist', 'index.html'))) throw new Error('run `npm run build` first');
  [daemon, browser] = await Promise.all([startDaemon(), launchChromium()]);
});
afterAll(async () => {
  tmuxServer.kill();
  await browser?.close();
  await daemon?.dispose();
});

describe('web dashboard', () => {
  it('browses the sessions: filter, sort, detail; creates a key shown once that the endpoint accepts', async (ctx) => {
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await page.goto(`${daemon.controlUrl}/`);
    await page.getByLabel('Control token').fill(daemon.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard views' }).getByRole('link', { name: 'Infosessions' }).click();

    await expect.poll(() => page.getByTestId('session-row').count(), { timeout: WAIT_MS }).toBe(50);
    expect(await page.locator('#sessions-heading + .summary').textContent()).toBe('1–50 of 363');
    expect(await page.getByTestId('source-file').first().textContent()).toBe('infosessions.csv: 363 rows');

    await page.getByLabel('Search').fill('google');
    await expect.poll(() => page.locator('#sessions-heading + .summary').textContent(), { timeout: WAIT_MS }).toMatch(/^1–\d+ of \d+$/);
    const employers = await page.getByTestId('session-row').locator('td:nth-child(3)').allTextContents();
    expect(employers.length).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Date' }).click();
    await expect.poll(() => page.locator('th[aria-sort="descending"]').count(), { timeout: WAIT_MS }).toBe(1);
    const dates = () => page.getByTestId('session-row').locator('td:nth-child(1)').allTextContents();
    const descending = async () => {
      const shown = await dates();
      return shown.length > 1 && shown.join() === [...shown].sort().reverse().join() && shown[0] !== shown.at(-1);
    };
    await expect.poll(descending, { timeout: WAIT_MS }).toBe(true);

    await page.getByTestId('session-row').first().getByRole('button').click();
    const detail = page.getByTestId('session-detail');
    await detail.waitFor({ timeout: WAIT_MS });
    expect(await detail.textContent()).toMatch(/When.*Where.*Website.*Audience/s);

    await page.getByRole('navigation', { name: 'Dashboard views' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('from the web');
    await page.getByRole('button', { name: 'Create' }).click();
    const secret = (await page.getByTestId('new-key').locator('code').textContent({ timeout: WAIT_MS })) ?? '';
    expect(secret).toMatch(/^[0-9a-f]{32}$/);
    const res = await fetch(`${daemon.servicesUrl}/v2/resources/infosessions.json?key=${secret}`);
    expect(res.status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.locator('table').textContent(), { timeout: WAIT_MS }).toMatch(new RegExp(`from the web.*${secret.slice(0, 4)}\\*\\*\\*.*active.*1`, 's'));
    expect(await page.content()).not.toContain(secret);
  });
});

function tmux(...args: string[]): string {
  return tmuxServer.run(...args);
}

describe('terminal console', () => {
  it('shows the infosessions table in 80x24, filters with /, opens the detail', async () => {
    const command = `NO_COLOR=1 '${process.execPath}' '${PORTICO_BIN}' tui --url ${daemon.controlUrl} --token-file '${join(daemon.dataDir, 'control.token')}'; sleep 600`;
    tmux('new-session', '-d', '-x', '80', '-y', '24', '-s', 'tui', '-c', REPO_ROOT, command);
    let last = '';
    const waitFor = (pattern: RegExp) => waitUntil(() => pattern.test((last = tmux('capture-pane', '-p', '-t', 'tui'))), WAIT_MS, () => `pane never matched ${pattern}:\n${last}`);
    await waitFor(/● connected/);
    tmux('send-keys', '-t', 'tui', ':infosessions', 'Enter');
    await waitFor(/INFOSESSIONS {2}363 sessions[\s\S]*2013-09-05 {2}09:30-13:00 {2}Accenture/);
    for (const line of last.replace(/\n$/, '').split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    tmux('send-keys', '-t', 'tui', '/');
    await waitFor(/^\/█/m);
    tmux('send-keys', '-t', 'tui', '-l', 'hulu');
    await waitFor(/^\/hulu█/m);
    tmux('send-keys', '-t', 'tui', 'Enter');
    await waitFor(/1 matching "hulu"[\s\S]*2013-09-09 {2}11:30-13:30 {2}Hulu\s+TC 2218/);
    tmux('send-keys', '-t', 'tui', 'Enter');
    await waitFor(/at Tatham Centre, 2218 \[TC\]/);
    expect(last).toContain('http://www.hulu.com');
  });
});
