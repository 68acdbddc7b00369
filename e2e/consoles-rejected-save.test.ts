// A config save the daemon rejects shows on every view of both consoles (not only Config and
// Events), also in a console opened after the save, until a save that loads clears it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from './browser.js';
import { goToView, openTui, signIn, WAIT_MS, type TuiPane } from './consoles-kit.js';
import { changed, gatewayConfigCopy, type GatewayConfigCopy } from './gateway-e2e-config.js';
import { REPO_ROOT, startDaemon, type DaemonHandle } from './harness.js';

let browser: Browser;
let daemon: DaemonHandle;
let copy: GatewayConfigCopy;
let pane: TuiPane | undefined;

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'console-web', 'dist', 'index.html'))) throw new Error('run `npm run build -w console-web` first');
  browser = await launchChromium();
});
afterEach(async () => {
  pane?.close();
  await daemon?.dispose();
  await copy?.dispose();
});
afterAll(async () => {
  await browser?.close();
});

/** An argument the server block does not take: the save is rejected with "Unsupported argument". */
function breakIt(text: string): string {
  return changed(text, text.replace('server "portico" {\n', 'server "portico" {\n  bogus_setting = 1\n'));
}

describe('a rejected config save', () => {
  it('shows on every view of the terminal and the web console until a good save, also in a console opened after it', async (ctx) => {
    copy = await gatewayConfigCopy();
    daemon = await startDaemon({ args: copy.args });
    pane = openTui('rejected', daemon, 80, 24);
    await pane.waitFor(/● connected[\s\S]*COMPONENTS/);
    const early = await openPage(browser, ctx, { width: 1280, diagnostics: () => daemon.logs() });
    await signIn(early, daemon);
    await goToView(early, 'Events');
    expect(await early.getByTestId('rejected-save').count()).toBe(0);

    copy.edit(breakIt);

    // Terminal: under the tabs on the status view, on the next view, and `!` leads to Config.
    const rows = await pane.waitFor(/✗ config rejected: portico\.hcl:\d+[,:]\d+[^\n]* Unsupported argument/);
    expect(rows[1]).toContain('[status]');
    expect(rows[2]).toMatch(/^ ✗ config rejected: portico\.hcl:\d+[,:]\d+.* · ! open Config$/);
    for (const row of rows) expect(Array.from(row).length).toBeLessThanOrEqual(80);
    pane.keys('Tab');
    const next = await pane.waitFor(/\[config\]|\[backends\]|\[events\]|\[clusters\]/);
    expect(next[2]).toContain('✗ config rejected');
    pane.keys('!');
    const config = await pane.waitFor(/\[config\]/);
    expect(config[2]).toMatch(/✗ config rejected: .*Unsupported argument/);
    expect(config[2]).not.toContain('! open Config');

    // Web, open before the save: the notice appears on the Events view.
    const notice = early.getByTestId('rejected-save');
    await expect.poll(() => notice.textContent(), { timeout: WAIT_MS }).toMatch(/Config save rejected: portico\.hcl:\d+[,:]\d+[^ ]* Unsupported argument · (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d\. The previous configuration keeps serving\. Open Config/);

    // Web, opened after the save: it reads the last reload at sign-in, and keeps it across views.
    const late = await openPage(browser, ctx, { width: 1280, diagnostics: () => daemon.logs() });
    await signIn(late, daemon);
    await late.getByTestId('rejected-save').waitFor({ timeout: WAIT_MS });
    await goToView(late, 'Jobs');
    expect(await late.getByTestId('rejected-save').textContent()).toMatch(/Unsupported argument/);
    await late.getByTestId('rejected-save').getByRole('link', { name: 'Open Config' }).click();
    await late.getByRole('heading', { level: 1, name: 'Config' }).waitFor({ timeout: WAIT_MS });
    expect(new URL(late.url()).pathname).toBe('/config');
    expect(await late.getByTestId('rejected-save').getByRole('link').count()).toBe(0);

    // A save that loads clears it everywhere.
    copy.edit((text) => changed(text, text.replace('  bogus_setting = 1\n', '')));
    await pane.waitFor(/✓ applied \(file\)/);
    expect(pane.rows().join('\n')).not.toContain('config rejected');
    await expect.poll(() => notice.count(), { timeout: WAIT_MS }).toBe(0);
    await expect.poll(() => late.getByTestId('rejected-save').count(), { timeout: WAIT_MS }).toBe(0);
  });
});
