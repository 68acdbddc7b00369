import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from '../daemon/src/ingest/testing/https-receiver.js';
import { seedDeliveries } from '../daemon/src/ingest/testing/ingest-fixture.js';
import { SqliteStore } from '../daemon/src/store/sqlite-store.js';
import { launchChromium, openPage } from './browser.js';
import { ARTIFACTS_DIR, startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { shortId } from '../daemon/src/display/ids.js';

// Three attempts a round, the third due an hour after the second (see callbacks-reset.test.ts).
const SCHEDULE = '0s,300ms,1h';
const WAIT_MS = 20_000;

let tls: TestTls;
let receiver: TestReceiver;
let daemon: DaemonHandle;
let browser: Browser;
let store: SqliteStore;
beforeAll(async () => {
  tls = makeTestTls();
  receiver = await startReceiver(tls);
  [daemon, browser] = await Promise.all([
    startDaemon({ env: { SERVICE_CALLBACK_CA_FILE: tls.caFile, SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1', SERVICE_CALLBACK_POLL_INTERVAL_S: '0.1', SERVICE_CALLBACK_RETRY_SCHEDULE: SCHEDULE } }),
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
    // Not due for an hour: the daemon's worker (polling every 0.1 s) must not send them between
    // the seed and the UPDATE that makes them DEAD; the reset makes them due now.
    const now = Date.now();
    await seedDeliveries(store, 2, `${receiver.url}/web`, 'web-secret-0123456789abcdef0123456789', now, now + 3600_000);
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

  it('counts DEAD on Status and in the navigation, links a job to its delivery, retries it now, and numbers on after a reset', async (ctx) => {
    const failing = new Set(['/webflow']);
    receiver.reply = (req) => (failing.has(req.path) ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' });
    const [id] = await seedDeliveries(store, 1, `${receiver.url}/webflow`);
    const row = async () => (await store.get<{ status: string; attempts: number; ingest_job_id: string }>('SELECT status, attempts, ingest_job_id FROM ingest_callback_outbox WHERE id = ?', [id!]))!;
    await waitUntil(async () => (await row()).attempts === 2, WAIT_MS, () => 'two failed attempts');
    const { ingest_job_id: jobId } = await row();
    const deadBefore = (await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM ingest_callback_outbox WHERE status = 'DEAD'"))!.n;
    const short = shortId(id!);

    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await page.goto(`${daemon.controlUrl}/status`);
    await page.getByLabel('Control token').fill(daemon.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    await expect.poll(() => page.getByTestId('dead-count').textContent()).toBe(String(deadBefore));
    const nav = page.getByRole('navigation', { name: 'Dashboard views' });

    await nav.getByRole('link', { name: 'Jobs' }).click();
    const jobRow = page.getByTestId(`job-${jobId}`);
    await jobRow.getByRole('button', { name: 'Details' }).click();
    const delivery = page.getByTestId('job-delivery');
    await delivery.getByText('◐ PENDING').waitFor();
    // The next attempt is due in an hour: after 23:00 that is tomorrow, shown with its date.
    expect(await delivery.textContent()).toMatch(/attempt 2\/3 · next attempt (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d · last error: receiver answered HTTP 503 · Open delivery/);
    await shot(page, 'jobs-delivery-1280');
    await delivery.getByRole('link', { name: `Open delivery ${short}` }).click();

    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/deliveries');
    expect(new URL(page.url()).searchParams.get('delivery')).toBe(id);
    const log = page.getByRole('region', { name: `Attempts of delivery ${id} to ${receiver.url}/webflow` });
    await log.waitFor();
    await page.getByText('1 matching').waitFor();
    expect(await page.getByLabel('Job').inputValue()).toBe(jobId);

    await page.getByRole('button', { name: `Retry delivery ${short} now` }).click();
    const question = page.getByTestId('retry-question');
    expect(await question.textContent()).toContain(`Retry delivery ${short} now? A callback worker attempts it at its next poll`);
    await shot(page, 'deliveries-retry-question-1280');
    await question.getByRole('button', { name: 'Retry now' }).click();
    await page.getByText(`Delivery ${short} is due now; a callback worker attempts it at its next poll.`).waitFor();
    await waitUntil(async () => (await row()).status === 'DEAD', WAIT_MS, () => 'DEAD after the retried third attempt');
    await page.getByTestId(`delivery-${id}`).getByText('✗ DEAD').waitFor({ timeout: 15_000 });
    await log.getByText('Retry now by web console').waitFor();
    expect(await log.locator('tbody tr td:first-child').allTextContents()).toEqual(['1', '2', '—', '3']);
    await expect.poll(() => nav.getByTestId('dead-badge').textContent(), { timeout: 15_000 }).toContain(String(deadBefore + 1));
    expect(await nav.getByRole('link', { name: /Deliveries/ }).textContent()).toContain(`${deadBefore + 1} DEAD deliver`);

    failing.delete('/webflow');
    await page.getByTestId(`delivery-${id}`).getByRole('button', { name: 'Reset' }).click();
    await page.getByTestId('reset-question').getByRole('button', { name: 'Reset 1' }).click();
    await waitUntil(async () => (await row()).status === 'DELIVERED', WAIT_MS, () => 'delivered after the reset');
    await log.getByText('Reset to PENDING by web console: a new round after attempt #3').waitFor({ timeout: 15_000 });
    await expect.poll(() => log.locator('tbody tr td:first-child').allTextContents()).toEqual(['1', '2', '—', '3', '—', '4']);
    expect(await log.textContent()).toContain('attempt 1/3 (4 in all)');
    await shot(page, 'deliveries-log-after-reset-1280');

    await nav.getByRole('link', { name: 'Status' }).click();
    await expect.poll(() => page.getByTestId('dead-count').textContent()).toBe(String(deadBefore));
    await shot(page, 'status-1280');
  });
});

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS_DIR, `callbacks-web-${name}.png`), fullPage: true });
}
