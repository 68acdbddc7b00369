// Both consoles while the daemon is away (SIGKILL or SIGTERM): the screen says it is stale and
// since when, counters stop, actions are off with the reason; a daemon started again on the same
// address brings everything back without reloading the page or restarting the console.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from './browser.js';
import { goToView, navLayout, openTui, signIn, WAIT_MS, type TuiPane } from './consoles-kit.js';
import { REPO_ROOT, startDaemon, waitUntil, type DaemonHandle } from './harness.js';

const STALE = /stale — last update (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d/;
/** Long enough for any counter that still runs to show another second. */
const TWO_TICKS_MS = 2_200;

let daemon: DaemonHandle;
let browser: Browser;
const panes: TuiPane[] = [];

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'console-web', 'dist', 'index.html'))) throw new Error('run `npm run build -w console-web` first');
  [daemon, browser] = await Promise.all([startDaemon(), launchChromium()]);
});
afterEach(async () => {
  for (const pane of panes.splice(0)) pane.close();
  // Each test stops the daemon; the next one needs it running.
  if (await isDown()) await daemon.start();
});
afterAll(async () => {
  await browser?.close();
  await daemon?.dispose();
});

async function isDown(): Promise<boolean> {
  return fetch(`${daemon.controlUrl}/`).then(
    () => false,
    () => true,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('terminal console while the daemon is away', () => {
  for (const [columns, rows, signal] of [
    [80, 24, 'SIGKILL'],
    [120, 30, 'SIGTERM'],
  ] as const) {
    it(`${columns}x${rows}, ${signal}: stale with the last update, counters stopped, actions off with the reason; back by itself`, async () => {
      const pane = openTui(`disc-${columns}`, daemon, columns, rows);
      panes.push(pane);
      await pane.waitFor(/● connected[\s\S]*control +● running/);
      const firstPid = daemon.pid();

      await daemon.stop(signal);
      const down = await pane.waitFor(/✗ disconnected — reconnecting… · stale — last update (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d/);
      expect(down.at(-1)).toMatch(/^ ✗ actions off while disconnected · \? help/);
      for (const row of down) expect(Array.from(row).length).toBeLessThanOrEqual(columns);
      // Nothing under the header counts on while the daemon is away ("running for", uptime);
      // the header itself may still add why the link is down (connection refused).
      const before = pane.rows().slice(1);
      await sleep(TWO_TICKS_MS);
      expect(pane.rows().slice(1)).toEqual(before);

      pane.keys(':config', 'Enter');
      await pane.waitFor(/\[config\][\s\S]*✗ actions off while disconnected/);
      expect(pane.rows().at(-1)).not.toContain('r reload');
      pane.keys('r');
      await pane.waitFor(/r reload: off while disconnected; it works again once the daemon is back/);

      await daemon.start();
      await pane.waitFor(/● connected {2}http/);
      const back = await pane.waitFor(/r reload/);
      expect(back.join('\n')).not.toMatch(STALE);
      pane.keys('r');
      await pane.waitFor(/reload applied in \d+ ms/);
      pane.keys(':status', 'Enter');
      await pane.waitFor(new RegExp(`pid ${daemon.pid()}`));
      expect(daemon.pid()).not.toBe(firstPid);
      // The clock runs again: the components' "for" column moves on.
      const running = pane.rows().join('\n');
      await waitUntil(() => pane.rows().join('\n') !== running, WAIT_MS, () => 'the status screen never changed after the daemon came back');
    });
  }
});

describe('web dashboard while the daemon is away, at 1280 px', () => {
  it('SIGKILL: every view name stays in the top bar, the page reads stale with the last update, actions are off with the reason; back by itself', async (ctx) => {
    const page = await openPage(browser, ctx, { width: 1280, diagnostics: () => daemon.logs() });
    await signIn(page, daemon);
    await goToView(page, 'Deliveries');
    const summary = page.locator('.card .summary').first();
    await expect.poll(() => summary.textContent(), { timeout: WAIT_MS }).toMatch(/· live$/);
    const live = await navLayout(page);
    expect(live.titles.length).toBeGreaterThanOrEqual(9);
    expect(live).toMatchObject({ cut: [], rows: 1 });
    const reset = page.getByRole('button', { name: /Reset all DEAD matching/ });
    expect(await reset.isEnabled()).toBe(true);

    await daemon.stop('SIGKILL');
    await page.getByTestId('connection').filter({ hasText: /Disconnected/ }).waitFor({ timeout: WAIT_MS });
    expect(await navLayout(page)).toMatchObject({ titles: live.titles, cut: [], rows: 1 });
    expect(await page.getByTestId('stale-notice').textContent()).toMatch(/Disconnected from the daemon — reconnecting by itself\. What you see is stale — last update (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d; actions are off/);
    await expect.poll(() => summary.textContent()).toMatch(new RegExp(`· ${STALE.source}$`));
    expect(await reset.isDisabled()).toBe(true);
    expect(await reset.getAttribute('title')).toMatch(/Disconnected from the daemon: this works again once it is back/);
    // A read meanwhile says what is wrong in words, not the browser's "Failed to fetch".
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText(/^The daemon is not reachable; this shows the last data received/).waitFor({ timeout: WAIT_MS });
    expect(await page.content()).not.toContain('Failed to fetch');

    await daemon.start();
    await page.getByTestId('connection').filter({ hasText: /Live/ }).waitFor({ timeout: WAIT_MS });
    await expect.poll(() => reset.isEnabled()).toBe(true);
    expect(await page.getByTestId('stale-notice').count()).toBe(0);
    await expect.poll(() => summary.textContent()).toMatch(/· live$/);
  });

  it('SIGTERM: the uptime stops while the daemon is away, a Reload works again once a new daemon answers', async (ctx) => {
    const page = await openPage(browser, ctx, { width: 1280, diagnostics: () => daemon.logs() });
    await signIn(page, daemon);
    const firstPid = await page.getByTestId('pid').textContent();

    expect(await daemon.stop('SIGTERM')).toBe(0);
    await page.getByTestId('stale-notice').waitFor({ timeout: WAIT_MS });
    const uptime = await page.getByTestId('uptime').textContent();
    await sleep(TWO_TICKS_MS);
    expect(await page.getByTestId('uptime').textContent()).toBe(uptime);
    expect(await navLayout(page)).toMatchObject({ cut: [], rows: 1 });

    await daemon.start();
    await expect.poll(() => page.getByTestId('pid').textContent(), { timeout: WAIT_MS }).toBe(String(daemon.pid()));
    expect(String(daemon.pid())).not.toBe(firstPid);
    const after = await page.getByTestId('uptime').textContent();
    await expect.poll(() => page.getByTestId('uptime').textContent(), { timeout: WAIT_MS }).not.toBe(after);

    await goToView(page, 'Config');
    const reload = page.getByRole('button', { name: 'Reload', exact: true });
    await expect.poll(() => reload.isEnabled(), { timeout: WAIT_MS }).toBe(true);
    await reload.click();
    await expect.poll(() => page.getByTestId('reload-result').textContent(), { timeout: WAIT_MS }).toMatch(/^Reload applied in \d+ ms/);
  });
});
