// The Config and Backends views of both consoles against a real daemon running the gateway:
// a save in the temp copy of config/portico.hcl shows up live, a backend going down turns red.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from './browser.js';
import { changed, gatewayConfigCopy, PROBE_SECRET, stopProbe, withEndpoint, type GatewayConfigCopy } from './gateway-e2e-config.js';
import { PORTICO_BIN, REPO_ROOT, startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { TmuxServer } from './tmux.js';

const WAIT_MS = 15_000;
const tmuxServer = new TmuxServer('gw');

let browser: Browser;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'console-web', 'dist', 'index.html'))) throw new Error('run `npm run build` first');
  browser = await launchChromium();
});
afterEach(async () => {
  tmuxServer.kill();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await browser?.close();
});

async function start(): Promise<{ daemon: DaemonHandle; copy: GatewayConfigCopy }> {
  const copy = await gatewayConfigCopy();
  cleanups.push(() => copy.dispose());
  const daemon = await startDaemon({ args: copy.args });
  cleanups.push(() => daemon.dispose());
  return { daemon, copy };
}

describe('web dashboard', () => {
  it('shows the active config with secrets as ***, a save and a broken save live, and reloads with the button', async (ctx) => {
    const { daemon, copy } = await start();
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await page.goto(`${daemon.controlUrl}/`);
    await page.getByLabel('Control token').fill(daemon.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard views' }).getByRole('link', { name: 'Config' }).click();

    await page.getByTestId('last-reload').waitFor({ timeout: WAIT_MS });
    expect(await page.getByTestId('last-reload').textContent()).toMatch(/applied\s*start at/);
    await page.getByRole('button', { name: 'probe.hcl' }).click();
    await expect.poll(() => page.getByTestId('config-source').textContent(), { timeout: WAIT_MS }).toContain('basic_auth = "***"');
    expect(await page.content()).not.toContain(PROBE_SECRET);

    copy.edit((t) => withEndpoint(t, '/hello', 'hi'));
    await expect.poll(() => page.getByTestId('last-reload').textContent(), { timeout: WAIT_MS }).toMatch(/applied\s*file at .*: \+1 endpoint \(\/hello\)/);

    copy.edit((t) => changed(t, t.replace('body = "hi"', 'body = "hi"\n      bogus = 1')));
    await expect.poll(() => page.getByTestId('last-reload').textContent(), { timeout: WAIT_MS }).toMatch(/rejected\s*file at .*the previous configuration keeps serving.*portico\.hcl:\d+,\d+-\d+: Unsupported argument;/s);

    await page.getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => page.getByTestId('reload-result').textContent(), { timeout: WAIT_MS }).toMatch(/^Reload rejected in \d+ ms: 1 problem: portico\.hcl:\d+,\d+-\d+: Unsupported argument/);
    await expect.poll(() => page.getByTestId('reload-history').locator('tbody tr').count(), { timeout: WAIT_MS }).toBe(4);
  });

  it('shows the backends and turns the probe red live when its server goes down', async (ctx) => {
    const { daemon, copy } = await start();
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await page.goto(`${daemon.controlUrl}/`);
    await page.getByLabel('Control token').fill(daemon.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard views' }).getByRole('link', { name: 'Backends' }).click();

    const probe = page.getByTestId('backend-probe');
    await expect.poll(() => probe.getAttribute('data-state'), { timeout: WAIT_MS }).toBe('healthy');
    expect(await probe.textContent()).toContain(`http://127.0.0.1:${copy.probePort}`);
    expect(await probe.textContent()).toContain('/probe/**');
    expect(await page.getByTestId('backend-services').getAttribute('data-state')).toBe('healthy');

    await stopProbe(copy);
    await expect.poll(() => probe.getAttribute('data-state'), { timeout: WAIT_MS }).toBe('unhealthy');
    // Red: the state badge carries the bad tone (the stylesheet's red), with glyph and word.
    expect(await probe.locator('.badge.tone-bad').textContent()).toBe('✗unhealthy');
    await expect.poll(() => page.getByTestId('health-timeline').textContent(), { timeout: WAIT_MS }).toMatch(/probe\s*◐?degraded → .*unhealthy/);
  });
});

function tmux(...args: string[]): string {
  return tmuxServer.run(...args);
}

describe('terminal console', () => {
  it('shows a save and the probe going down in 80x24', async () => {
    const { daemon, copy } = await start();
    const command = `NO_COLOR=1 '${process.execPath}' '${PORTICO_BIN}' tui --url ${daemon.controlUrl} --token-file '${join(daemon.dataDir, 'control.token')}'; sleep 600`;
    tmux('new-session', '-d', '-x', '80', '-y', '24', '-s', 'tui', '-c', REPO_ROOT, command);
    let last = '';
    const waitFor = (pattern: RegExp) => waitUntil(() => pattern.test((last = tmux('capture-pane', '-p', '-t', 'tui'))), WAIT_MS, () => `pane never matched ${pattern}:\n${last}`);
    const fits = () => {
      for (const line of last.replace(/\n$/, '').split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    };
    await waitFor(/● connected/);
    tmux('send-keys', '-t', 'tui', ':config', 'Enter');
    await waitFor(/CONFIG {2}portico\.hcl, probe\.hcl · applied/);
    await waitFor(/✓ applied \(start\)/);
    fits();

    copy.edit((t) => withEndpoint(t, '/hello', 'hi'));
    await waitFor(/✓ applied \(file\) (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d: \+1 endpoint \(\/hello\)/);
    copy.edit((t) => changed(t, t.replace('body = "hi"', 'body = "hi"\n      bogus = 1')));
    await waitFor(/✗ rejected \(file\)[\s\S]*portico\.hcl:\d+,\d+-\d+: Unsupported argument/);
    fits();
    tmux('send-keys', '-t', 'tui', 'r');
    await waitFor(/reload rejected in \d+ ms: 1 problem/);

    tmux('send-keys', '-t', 'tui', ':backends', 'Enter');
    await waitFor(/probe\s+● healthy/);
    fits();
    await stopProbe(copy);
    await waitFor(/probe\s+✗ unhealthy/);
    await waitFor(/(\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d {2}probe\s+degraded → unhealthy/);
    fits();
  });
});
