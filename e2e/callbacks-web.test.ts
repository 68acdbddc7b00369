import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from '../daemon/src/ingest/testing/https-receiver.js';
import { seedDeliveries } from '../daemon/src/ingest/testing/ingest-fixture.js';
import { SqliteStore } from '../daemon/src/store/sqlite-store.js';
import { launchChromium, openPage } from './browser.js';
import { startDaemon, waitUntil, type DaemonHandle } from './harness.js';

let tls: TestTls;
let receiver: TestReceiver;
let daemon: DaemonHandle;
let browser: Browser;
let store: SqliteStore;
beforeAll(async () => {
  tls = makeTestTls();
  receiver = await startReceiver(tls);
  [daemon, browser] = await Promise.all([
    startDaemon({ env: { SERVICE_CALLBACK_CA_FILE: tls.caFile, SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1', SERVICE_CALLBACK_POLL_INTERVAL_S: '0.1' } }),
    launchChromium(),
  ]);
  store = new SqliteStore({ file: join(daemon.dataDir, 'portico.db') });
});
afterAll(async () => {
  await store?.close();
  await browser?.close();
  await daemon?.dispose();
  await receiver?.close();
  tls?.dispose();
});

describe('web dashboard Deliveries view', () => {
  it('shows DEAD rows, states the count before resetting all matching, and the rows then deliver', async (ctx) => {
    await seedDeliveries(store, 2, `${receiver.url}/web`, 'web-secret-0123456789abcdef0123456789');
    await store.run(`UPDATE ingest_callback_outbox SET status = 'DEAD', attempts = 5, finished_at = ?, last_status_code = 503, last_error = 'receiver answered HTTP 503'`, [Date.now()]);
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await page.goto(`${daemon.controlUrl}/deliveries`);
    await page.getByLabel('Control token').fill(daemon.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    await page.getByText('2 matching').waitFor();
    expect(await page.getByText('✗ DEAD').count()).toBe(2);
    expect(await page.content()).not.toContain('web-secret');

    await page.getByRole('button', { name: 'Attempts' }).first().click();
    await page.getByTestId('attempt-log').getByText('No attempts yet.').waitFor();

    await page.getByRole('button', { name: 'Reset all DEAD matching…' }).click();
    const question = page.getByTestId('reset-question');
    await question.waitFor();
    expect(await question.textContent()).toContain('Reset 2 DEAD deliveries (all matching: every job and URL) to PENDING?');
    await question.getByRole('button', { name: 'Reset 2' }).click();
    await page.getByText('Reset 2 deliveries to PENDING.').waitFor();
    await waitUntil(() => receiver.received.length === 2, 20_000, () => `2 callbacks, got ${receiver.received.length}`);
    await page.getByText('● DELIVERED').first().waitFor({ timeout: 15_000 });
    const resets = await store.all<{ actor: string; count: number }>('SELECT actor, count FROM ingest_delivery_resets');
    expect(resets).toEqual([{ actor: 'web console', count: 2 }]);
  });

  it('shows rows another process changed without a reload (a worker elsewhere on the same database)', async (ctx) => {
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await page.goto(`${daemon.controlUrl}/deliveries`);
    await page.getByLabel('Control token').fill(daemon.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    const before = Number((await page.getByText(/\d+ matching/).textContent())?.match(/(\d+) matching/)?.[1]);
    // This test process writes like a separate worker process would: no event reaches the daemon's bus.
    // Not due for an hour, so this daemon's own callback worker leaves it alone.
    const [id] = await seedDeliveries(store, 1, 'https://elsewhere.invalid/hook', null, Date.now() + 3600_000);
    await store.run(`UPDATE ingest_callback_outbox SET status = 'DEAD', attempts = 5, finished_at = ?, last_error = 'set by another process' WHERE id = ?`, [Date.now(), id!]);
    await page.getByText(`${before + 1} matching`).waitFor({ timeout: 10_000 });
    await page.getByText('elsewhere.invalid').first().waitFor();
  });
});
