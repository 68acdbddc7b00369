// Split modes: a console on the control process sees the events a worker process emits (SQLite
// polled, PostgreSQL LISTEN/NOTIFY), warnings carry their ids and error, and both consoles filter.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedDeliveries } from '../daemon/src/ingest/testing/ingest-fixture.js';
import { postgresReachable } from '../daemon/src/store/testing/databases.js';
import type { Store } from '../daemon/src/store/types.js';
import { launchChromium, openPage } from './browser.js';
import { daemonDatabase, PORTICO_BIN, REPO_ROOT, startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { isWholeFrame, shellQuote, TmuxServer } from './tmux.js';

const withPostgres = await postgresReachable();
// Nothing listens on port 1: every attempt fails with the connection refused. The query holds a
// secret-looking value that no event may show.
const TARGET = 'https://127.0.0.1:1/hook?token=query-secret-123';
const WORKER_ENV = { SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1', SERVICE_CALLBACK_POLL_INTERVAL_S: '0.1' };

interface Split {
  control: DaemonHandle;
  worker: DaemonHandle;
  store: Store;
  dispose(): Promise<void>;
}

/** A control process (gateway mode: no callback worker) and a callback-worker process on one database. */
async function startSplit(kind: 'sqlite' | 'postgres'): Promise<Split> {
  const database = await daemonDatabase(kind);
  const control = await startDaemon({ args: ['--mode', 'gateway'], env: database.env });
  const worker = await startDaemon({ args: ['--mode', 'callback-worker'], env: { ...database.env, ...WORKER_ENV }, dataDir: control.dataDir });
  const store = await database.open(control.dataDir);
  return {
    control,
    worker,
    store,
    async dispose() {
      await store.close();
      await worker.dispose();
      await control.dispose();
      await database.drop();
    },
  };
}

async function signIn(page: Page, daemon: DaemonHandle, path: string): Promise<void> {
  await page.goto(`${daemon.controlUrl}${path}`);
  await page.getByLabel('Control token').fill(daemon.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Events' }).waitFor();
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe.each(withPostgres ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const))('web Events view of the control process, on %s', (kind) => {
  let split: Split;
  beforeAll(async () => {
    split = await startSplit(kind);
  });
  afterAll(async () => {
    await split?.dispose();
  });

  it("shows the worker process's failed attempt with delivery, job, attempt, target and error, and filters by level and type in the address", async (ctx) => {
    const { control, worker, store } = split;
    const page = await openPage(browser, ctx, { diagnostics: () => `--- control ---\n${control.logs()}\n--- worker ---\n${worker.logs()}` });
    await signIn(page, control, '/events?level=warn');
    await expect.poll(() => page.getByRole('checkbox', { name: 'warn' }).isChecked()).toBe(true);

    const [deliveryId] = await seedDeliveries(store, 1, TARGET, 'whsec_do-not-show-0123456789abcdef');
    const { ingest_job_id: jobId } = (await store.get<{ ingest_job_id: string }>('SELECT ingest_job_id FROM ingest_callback_outbox WHERE id = ?', [deliveryId!]))!;
    const warning = page.locator('li.event', { hasText: 'callback_attempt_failed' }).first();
    await warning.waitFor({ timeout: 20_000 });
    expect(await warning.locator('.event-origin').textContent()).toBe(`from callback-worker pid ${worker.pid()}`);
    const details = Object.fromEntries(await warning.locator('.event-details > div').evaluateAll((rows) => rows.map((r) => [r.querySelector('dt')?.textContent, r.querySelector('dd')?.textContent])));
    expect(details).toMatchObject({ id: deliveryId, job_id: jobId, target: 'https://127.0.0.1:1/hook?token=***' });
    expect(details.attempts).toMatch(/^1\/\d$/);
    expect(details.error).toMatch(/ECONNREFUSED/);
    const html = await page.content();
    expect(html).not.toContain('query-secret-123');
    expect(html).not.toContain('whsec_do-not-show');
    // Level warn: the info events of both processes (the PENDING delivery, daemon.started) stay out.
    expect(await page.locator('li.event.level-info').count()).toBe(0);

    await page.getByRole('combobox', { name: 'Type' }).selectOption('delivery.state');
    await page.getByText('No events match the filter.').waitFor();
    expect(new URL(page.url()).search).toBe('?level=warn&type=delivery.state');
    await page.getByRole('checkbox', { name: 'warn' }).uncheck();
    // The attempt's delivery.state event (info) came from the worker too.
    await page.locator('li.event', { hasText: `delivery ${deliveryId} of job ${jobId} PENDING (attempt 1)` }).first().waitFor();
    expect(await page.locator('li.event', { hasText: `delivery ${deliveryId}` }).first().textContent()).toContain(`from callback-worker pid ${worker.pid()}`);
    expect(new URL(page.url()).search).toBe('?type=delivery.state');
    await page.reload();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await expect.poll(() => page.getByRole('combobox', { name: 'Type' }).inputValue()).toBe('delivery.state');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    expect(new URL(page.url()).search).toBe('');
  });
});

describe('terminal Events view of the control process (tmux)', () => {
  const tmux = new TmuxServer('events-split');
  let split: Split;
  beforeAll(async () => {
    split = await startSplit('sqlite');
  });
  afterAll(async () => {
    tmux.kill();
    await split?.dispose();
  });
  afterEach(() => {
    tmux.run('kill-session', '-t', 'tui');
  });

  const screen = (): string => tmux.run('capture-pane', '-p', '-t', 'tui');
  /** Waits for `pattern` in a whole frame (not the top of one that tmux has taken only in part). */
  async function waitForScreen(pattern: RegExp): Promise<string> {
    let last = '';
    await waitUntil(() => isWholeFrame((last = screen())) && pattern.test(last), 20_000, () => `the pane never showed a whole frame matching ${pattern}; it shows:\n${last}\n--- worker ---\n${split.worker.logs()}`);
    return last;
  }

  it.each([
    [80, 24],
    [120, 30],
  ])("shows the worker process's warning with its details at %ix%i, and filters by level and type", async (columns, rows) => {
    const { control, worker, store } = split;
    const command = `NO_COLOR=1 ${shellQuote(process.execPath)} ${shellQuote(PORTICO_BIN)} tui --url ${control.controlUrl} --token-file ${shellQuote(join(control.dataDir, 'control.token'))}; sleep 600`;
    tmux.run('new-session', '-d', '-x', String(columns), '-y', String(rows), '-s', 'tui', '-c', REPO_ROOT, command);
    await waitForScreen(/● connected/);
    tmux.run('send-keys', '-t', 'tui', ':events', 'Enter');
    await waitForScreen(/EVENTS {2}\d+ · following new events/);

    const [deliveryId] = await seedDeliveries(store, 1, TARGET);
    const seen = await waitForScreen(new RegExp(`callback-worker: callback_attempt_failed[\\s\\S]*↳ id=${deliveryId}`));
    expect(seen).not.toContain('query-secret-123');
    const lines = seen.split('\n');
    expect(lines.length).toBeLessThanOrEqual(rows + 1);
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(columns);
    const details = seen.slice(seen.indexOf(`↳ id=${deliveryId}`)).split('\n').slice(0, 4).map((l) => l.trim()).join(' ');
    expect(details).toMatch(/attempts=1\/\d/);
    expect(details).toMatch(/error="[^"]*ECONNREFUSED/);
    if (columns >= 120) expect(seen).toContain(`callback_attempt_failed · from callback-worker pid ${worker.pid()}`);

    tmux.run('send-keys', '-t', 'tui', 'l');
    const warnOnly = await waitForScreen(/EVENTS {2}\d+ of \d+ · level warn, error · all types/);
    expect(warnOnly).toContain('callback_attempt_failed');
    expect(warnOnly).not.toMatch(/· info /);
    tmux.run('send-keys', '-t', 'tui', 'x');
    await waitForScreen(/EVENTS {2}\d+ · following new events/);
    // Types step in name order; walk to delivery.state, which the worker's attempt produced.
    const typeShown = (): string => /· (all types|type \S+) ·/.exec(screen())?.[1] ?? '';
    for (let i = 0; i < 8 && typeShown() !== 'type delivery.state'; i++) {
      const before = typeShown();
      tmux.run('send-keys', '-t', 'tui', 't');
      await waitUntil(() => typeShown() !== before, 10_000, () => `t did not change the type filter:\n${screen()}`);
    }
    const deliveries = await waitForScreen(/all levels · type delivery\.state/);
    expect(deliveries).toMatch(/delivery\.state +delivery /);
    expect(deliveries).not.toContain('callback_attempt_failed');
  });
});
