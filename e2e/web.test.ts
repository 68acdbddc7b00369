import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from './browser.js';
import { REPO_ROOT, startDaemon, type DaemonHandle } from './harness.js';

const WEB_INDEX = join(REPO_ROOT, 'console-web', 'dist', 'index.html');
const WAIT_MS = 15_000;

let daemon: DaemonHandle;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(WEB_INDEX)) throw new Error(`${WEB_INDEX} is missing: run \`npm run build -w console-web\` first (npm test builds it).`);
  [daemon, browser] = await Promise.all([startDaemon(), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await daemon?.dispose();
});

async function signIn(page: Page, token: string): Promise<void> {
  await page.goto(`${daemon.controlUrl}/`);
  await page.getByLabel('Control token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Waits until `testId`'s text matches; the failure says what it showed instead. */
async function waitForText(page: Page, testId: string, pattern: RegExp): Promise<string> {
  const locator = page.getByTestId(testId);
  try {
    await locator.filter({ hasText: pattern }).waitFor({ timeout: WAIT_MS });
  } catch {
    const shown = await locator.textContent({ timeout: 1_000 }).catch(() => '(not on the page)');
    throw new Error(`[data-testid=${testId}] never matched ${pattern}; it shows: ${shown}`);
  }
  return (await locator.textContent()) ?? '';
}

describe('web dashboard', () => {
  it('refuses a wrong token and stays on the login screen', async (ctx) => {
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await signIn(page, 'not-the-token-0123456789');
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: WAIT_MS }).toMatch(/token refused/i);
    expect(await page.getByLabel('Control token').isVisible()).toBe(true);
    expect(await page.getByTestId('connection').count()).toBe(0);
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
  });

  it('logs in with the token and shows the live status, without ever showing the token', async (ctx) => {
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await signIn(page, daemon.token);
    await waitForText(page, 'connection', /Live/);
    expect(await waitForText(page, 'pid', /^\d+$/)).toBe(String(daemon.pid()));
    expect(await page.getByTestId('mode').textContent()).toBe('all');
    await expect.poll(() => page.getByTestId('component-control').textContent(), { timeout: WAIT_MS }).toMatch(/running/);

    const uptime = await page.getByTestId('uptime').textContent();
    await expect.poll(() => page.getByTestId('uptime').textContent(), { timeout: 5_000 }).not.toBe(uptime);

    expect(await page.content()).not.toContain(daemon.token);

    // Views are routes the daemon serves with its SPA fallback, and the tab keeps its session.
    await page.getByRole('navigation', { name: 'Dashboard views' }).getByRole('link', { name: 'Events' }).click();
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: WAIT_MS }).toBe('Events');
    expect(new URL(page.url()).pathname).toBe('/events');
    await waitForText(page, 'connection', /Live/);
  });

  it('says disconnected when the daemon stops and recovers by itself with the new pid', async (ctx) => {
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await signIn(page, daemon.token);
    await waitForText(page, 'connection', /Live/);
    const firstPid = await waitForText(page, 'pid', /^\d+$/);

    expect(await daemon.stop('SIGTERM')).toBe(0);
    await waitForText(page, 'connection', /Disconnected/);

    await daemon.start();
    const newPid = String(daemon.pid());
    expect(newPid).not.toBe(firstPid);
    await waitForText(page, 'pid', new RegExp(`^${newPid}$`));
    await waitForText(page, 'connection', /Live/);
    expect(await page.getByLabel('Control token').count()).toBe(0);
  });
});
