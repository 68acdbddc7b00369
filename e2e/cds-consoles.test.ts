// The Clusters view of both consoles against a real daemon in the default mode (gateway + cds)
// serving a temp copy of config/portico.hcl, with a real grpc-js proxy client on the CDS: the
// operator sees the `services` cluster with its health, the node with its stream kind, its ACK,
// then its NACK with the error detail, and a backend added to the file appears live.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSotw, type ClientDiscoveryResponse, type RecordedStream } from '../daemon/src/cds/testing/cds-fixture.js';
import { launchChromium, openPage } from './browser.js';
import { changed, gatewayConfigCopy, type GatewayConfigCopy } from './gateway-e2e-config.js';
import { ARTIFACTS_DIR, controlQuery, PORTICO_BIN, REPO_ROOT, startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { TmuxServer } from './tmux.js';

const WAIT_MS = 15_000;
const tmuxServer = new TmuxServer('cds');
const NODE_ID = 'e2e-edge-1';
const NACK_MESSAGE = 'cluster inventory: lb_policy MAGLEV needs a hash policy on the route';

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

interface ClustersList {
  version: string;
  clusters: { name: string; healthStatus: string }[];
}

/** The daemon on a copy of config/portico.hcl alone (its `services` backend is health-checked). */
async function start(): Promise<{ daemon: DaemonHandle; copy: GatewayConfigCopy; list: () => Promise<ClustersList> }> {
  const copy = await gatewayConfigCopy();
  cleanups.push(() => copy.dispose());
  const daemon = await startDaemon({ args: ['-f', copy.main] });
  cleanups.push(() => daemon.dispose());
  const list = async (): Promise<ClustersList> => ((await controlQuery(daemon, 'clusters.list', daemon.token)).body as { result: { data: ClustersList } }).result.data;
  // Wait for the first health check, so the proxy's first version is not replaced by the UNKNOWN → HEALTHY one.
  await expect.poll(async () => (await list()).clusters.find((c) => c.name === 'services')?.healthStatus, { timeout: WAIT_MS }).toBe('HEALTHY');
  return { daemon, copy, list };
}

/** A proxy on the CDS: wildcard SotW stream, ACKs the first response; returns it with that response. */
async function proxyAcked(daemon: DaemonHandle): Promise<{ stream: RecordedStream<ClientDiscoveryResponse>; first: ClientDiscoveryResponse }> {
  const stream = openSotw(daemon.cdsAddress);
  stream.send({ node: { id: NODE_ID, cluster: 'edge' } });
  const first = await stream.nth(1);
  stream.send({ version_info: first.version_info, response_nonce: first.nonce });
  return { stream, first };
}

/** Adds the `inventory` backend (a DNS name, no health check: HEALTHY) to the config copy. */
function addInventoryBackend(copy: GatewayConfigCopy): void {
  copy.edit((t) => changed(t, t.replace('definitions {\n', 'definitions {\n  backend "inventory" {\n    origin = "http://inventory.internal:8081"\n  }\n\n')));
}

/** The proxy rejects the version that brought `inventory` (response 2). */
async function nackSecond(stream: RecordedStream<ClientDiscoveryResponse>): Promise<ClientDiscoveryResponse> {
  const second = await stream.nth(2);
  stream.send({ version_info: (await stream.nth(1)).version_info, response_nonce: second.nonce, error_detail: { code: 3, message: NACK_MESSAGE } });
  return second;
}

describe('web dashboard', () => {
  it('shows clusters with health, the proxy with its ACK then its NACK detail, and a new backend, live', async (ctx) => {
    const { daemon, copy } = await start();
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await page.goto(`${daemon.controlUrl}/`);
    await page.getByLabel('Control token').fill(daemon.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard views' }).getByRole('link', { name: 'Clusters' }).click();

    const services = page.getByTestId('cluster-services');
    await expect.poll(() => services.getAttribute('data-health'), { timeout: WAIT_MS }).toBe('HEALTHY');
    expect(await services.textContent()).toMatch(/STATIC.*127\.0\.0\.1:\d+.*HEALTHY/);
    expect(await page.getByText('No proxy is connected.').count()).toBe(1);
    // Set in the page: still there at the end proves every update came without a reload.
    await page.evaluate('window.e2eSamePage = true');

    const { stream, first } = await proxyAcked(daemon);
    const client = page.getByTestId(`cds-client-${NODE_ID}`);
    await expect.poll(() => client.textContent(), { timeout: WAIT_MS }).toMatch(new RegExp(`ACK${first.version_info}`));
    const row = (await client.textContent()) ?? '';
    expect(row).toMatch(new RegExp(`^${NODE_ID}cluster edge127\\.0\\.0\\.1:\\d+since \\d\\d:\\d\\d:\\d\\dSotW\\* \\(wildcard\\)${first.version_info}nonce ${first.nonce}`));
    expect(await client.locator('.badge.tone-good').textContent()).toBe('●ACK');

    addInventoryBackend(copy);
    const inventory = page.getByTestId('cluster-inventory');
    await expect.poll(() => inventory.textContent(), { timeout: WAIT_MS }).toMatch(/^inventorySTRICT_DNSinventory\.internal:8081●HEALTHY/);
    const second = await nackSecond(stream);
    expect(await page.getByTestId('cds-version').textContent()).toBe(second.version_info);

    await expect.poll(() => client.locator('.badge.tone-bad').textContent(), { timeout: WAIT_MS }).toBe('✗NACK');
    expect(await client.getByTestId('cds-last-nack').textContent()).toMatch(new RegExp(`^${second.version_info}\\d\\d:\\d\\d:\\d\\dcode 3 INVALID_ARGUMENT$`));
    expect(await page.getByTestId(`cds-nack-${NODE_ID}`).textContent()).toBe(`error detail of the NACK: ${NACK_MESSAGE}`);
    expect(await page.evaluate<boolean>('window.e2eSamePage === true')).toBe(true);
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS_DIR, 'cds-consoles-web.png'), fullPage: true });

    stream.cancel();
    await expect.poll(() => page.getByText('No proxy is connected.').count(), { timeout: WAIT_MS }).toBe(1);
  });
});

function tmux(...args: string[]): string {
  return tmuxServer.run(...args);
}

describe('terminal console', () => {
  it('shows clusters with health, the proxy with its ACK then its NACK detail, and a new backend, live in 80x24', async () => {
    const { daemon, copy } = await start();
    const command = `NO_COLOR=1 '${process.execPath}' '${PORTICO_BIN}' tui --url ${daemon.controlUrl} --token-file '${join(daemon.dataDir, 'control.token')}'; sleep 600`;
    tmux('new-session', '-d', '-x', '80', '-y', '24', '-s', 'tui', '-c', REPO_ROOT, command);
    let last = '';
    const waitFor = (pattern: RegExp) => waitUntil(() => pattern.test((last = tmux('capture-pane', '-p', '-t', 'tui'))), WAIT_MS, () => `pane never matched ${pattern}:\n${last}`);
    const fits = () => {
      const lines = last.replace(/\n$/, '').split('\n');
      expect(lines).toHaveLength(24);
      for (const line of lines) expect(Array.from(line).length, line).toBeLessThanOrEqual(80);
    };
    await waitFor(/● connected/);
    tmux('send-keys', '-t', 'tui', ':clusters', 'Enter');
    await waitFor(/\[clusters\][\s\S]*services +STATIC +● HEALTHY +127\.0\.0\.1:\d+[\s\S]*No proxy is connected\./);
    fits();

    const { stream, first } = await proxyAcked(daemon);
    const v1 = first.version_info;
    await waitFor(new RegExp(`${NODE_ID} +sotw +\\* +${v1.slice(0, 8)} +ACK ${v1.slice(0, 6)} `));
    expect(last).toContain('1 cluster · 1 client');

    addInventoryBackend(copy);
    await waitFor(/inventory +STRICT_DNS +● HEALTHY not checked +inventory\.internal:8081/);
    const second = await nackSecond(stream);
    const v2 = second.version_info;
    await waitFor(new RegExp(`${NODE_ID} +sotw +\\* +${v2.slice(0, 8)} +NACK ${v2.slice(0, 6)} `));
    // The error detail wraps at spaces under the table (continuations indented).
    const detail = NACK_MESSAGE.split(' ').map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+');
    await waitFor(new RegExp(`NACK from ${NODE_ID} of ${v2.slice(0, 8)} \\(code 3\\):\\s+${detail}`));
    expect(last).toContain(`version ${v2.slice(0, 8)} · 2 clusters · 1 client`);
    fits();

    // Redrawn to the new size: the clients rule spans the width, the detail wraps less.
    tmux('resize-window', '-t', 'tui', '-x', '120', '-y', '30');
    await waitFor(/^── clients \(1\) ─{105}$/m);
    expect(last.replace(/\n$/, '').split('\n')).toHaveLength(30);
    expect(last).toMatch(new RegExp(`NACK from ${NODE_ID} of ${v2.slice(0, 8)} \\(code 3\\): ${NACK_MESSAGE}`));
    tmux('resize-window', '-t', 'tui', '-x', '80', '-y', '24');
    await waitFor(/^── clients \(1\) ─{65}$/m);
    fits();

    stream.cancel();
    await waitFor(/No proxy is connected\./);
  });
});
