import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EventBus } from '../control/event-bus.js';
import { INGEST_SERVICE } from './control-router.js';
import { appCaller, testServices } from '../main/testing/control-server.js';
import { migrate } from '../store/migrate.js';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import type { Store } from '../store/types.js';
import type { CallbackWorker } from './callback-worker.js';
import { IngestControl } from './control-service.js';
import { JobStore } from './job-store.js';
import { INGEST_MIGRATIONS } from './migrations.js';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from './testing/https-receiver.js';
import { migratedStore, seedFinishedJob, testWorker } from './testing/ingest-fixture.js';

const factories = await testDatabases();
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const HOUR = 3600_000;
let tls: TestTls;
beforeAll(() => {
  tls = makeTestTls();
});
afterAll(() => tls.dispose());

describe.each(factories.map((f) => [f().kind, f] as const))('attempt numbering across resets on %s', (_kind, factory) => {
  let database: TestDatabase;
  let store: Store;
  let receiver: TestReceiver;
  let now: number;
  let worker: CallbackWorker;
  let caller: ReturnType<typeof appCaller>;
  beforeEach(async () => {
    database = factory();
    store = await migratedStore(database);
    receiver = await startReceiver(tls);
    now = T0;
    worker = testWorker(store, tls.caFile, { clock: () => now });
    await worker.start();
    const control = new IngestControl(() => store, () => new JobStore(store), () => {}, () => now);
    caller = appCaller(testServices(new EventBus('test')).provide(INGEST_SERVICE, control));
  });
  afterEach(async () => {
    await worker.stop();
    await receiver.close();
    await store.close();
    await database.destroy();
  });

  /** Runs one due attempt, then moves the clock past any wait of the schedule. */
  async function attempt(): Promise<void> {
    expect(await worker.runOnce()).toBe(1);
    now += 7 * HOUR;
  }

  it('goes on from #6 after a reset that followed 5 attempts, with the reset in the log, oldest first, and a fresh round before DEAD', async () => {
    const { deliveryId } = await seedFinishedJob(store, { url: receiver.url }, 'FAILED', T0);
    const id = deliveryId!;
    receiver.reply = () => ({ status: 503 });
    for (let i = 0; i < 5; i++) await attempt();
    expect(await caller.deliveries.get({ id })).toMatchObject({ status: 'DEAD', attempts: 5, attempts_in_round: 5 });

    const resetAt = now;
    expect(await caller.deliveries.resetDead({ ids: [id], actor: 'ada@ops (cli)' })).toMatchObject({ count: 1 });
    expect(await caller.deliveries.get({ id })).toMatchObject({ status: 'PENDING', attempts: 5, attempts_in_round: 0, next_attempt_at: new Date(resetAt).toISOString() });
    expect(await worker.runOnce()).toBe(1);
    // The new round waits as the schedule's start says: 30 s after its first failure, not 6 h.
    expect(await caller.deliveries.get({ id })).toMatchObject({ status: 'PENDING', attempts: 6, attempts_in_round: 1, next_attempt_at: new Date(resetAt + 30_000).toISOString() });
    now += 7 * HOUR;
    for (let i = 0; i < 4; i++) await attempt();
    const dead = await caller.deliveries.get({ id });
    expect(dead).toMatchObject({ status: 'DEAD', attempts: 10, attempts_in_round: 5 });

    const log = dead.attempt_log.map((e) => (e.kind === 'attempt' ? `#${e.attempt}` : `${e.kind} by ${e.actor} after ${e.attempts_before}`));
    expect(log).toEqual(['#1', '#2', '#3', '#4', '#5', 'reset by ada@ops (cli) after 5', '#6', '#7', '#8', '#9', '#10']);
    const times = dead.attempt_log.map((e) => Date.parse(e.kind === 'attempt' ? e.started_at : e.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(dead.attempt_log[5]).toEqual({ kind: 'reset', actor: 'ada@ops (cli)', at: new Date(resetAt).toISOString(), attempts_before: 5 });
    expect(receiver.received).toHaveLength(10);
  });
});

describe.each(factories.map((f) => [f().kind, f] as const))('migration 4 on a database reset before it, on %s', (_kind, factory) => {
  let database: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    database = factory();
    store = await database.open();
  });
  afterEach(async () => {
    await store.close();
    await database.destroy();
  });

  it('counts every attempt of a row reset under the old numbering, and numbers its attempts in time order', async () => {
    await migrate(store, [{ area: 'ingest', migrations: INGEST_MIGRATIONS.slice(0, 3) }]);
    const { deliveryId } = await seedFinishedJob(store, { url: 'https://old.example.com/hook' }, 'SUCCEEDED', T0);
    const fresh = (await seedFinishedJob(store, { url: 'https://new.example.com/hook' }, 'SUCCEEDED', T0)).deliveryId!;
    // Old behaviour: 5 attempts, a reset to attempts 0, then 2 more numbered #1 and #2 again.
    const numbers = [1, 2, 3, 4, 5, 1, 2];
    for (const [i, n] of numbers.entries()) {
      await store.run(`INSERT INTO ingest_callback_attempts (id, delivery_id, attempt, worker, started_at, duration_ms, status_code, error, response_body) VALUES (?, ?, ?, 'w', ?, 5, 503, 'x', NULL)`, [
        `a${i}`,
        deliveryId!,
        n,
        T0 + i * HOUR,
      ]);
    }
    await store.run(`INSERT INTO ingest_callback_attempts (id, delivery_id, attempt, worker, started_at, duration_ms, status_code, error, response_body) VALUES ('b0', ?, 1, 'w', ?, 5, 503, 'x', NULL)`, [fresh, T0]);
    await store.run('UPDATE ingest_callback_outbox SET attempts = 2 WHERE id = ?', [deliveryId!]);
    await store.run('UPDATE ingest_callback_outbox SET attempts = 1 WHERE id = ?', [fresh]);

    await migrate(store, [{ area: 'ingest', migrations: INGEST_MIGRATIONS }]);
    const rows = await store.all<{ id: string; attempts: number; attempts_before_reset: number }>('SELECT id, attempts, attempts_before_reset FROM ingest_callback_outbox');
    expect(rows.find((r) => r.id === deliveryId)).toMatchObject({ attempts: 7, attempts_before_reset: 5 });
    expect(rows.find((r) => r.id === fresh)).toMatchObject({ attempts: 1, attempts_before_reset: 0 });
    const attempts = await store.all<{ attempt: number }>('SELECT attempt FROM ingest_callback_attempts WHERE delivery_id = ? ORDER BY started_at', [deliveryId!]);
    expect(attempts.map((a) => Number(a.attempt))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await store.all('SELECT action FROM ingest_delivery_resets')).toEqual([]);
  });
});
