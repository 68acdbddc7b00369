import { describe, expect, it } from 'vitest';
import { migrate } from '../store/migrate.js';
import { testDatabases } from '../store/testing/databases.js';
import { INGEST_MIGRATIONS } from './migrations.js';
import { callbackRigPerTest, T0 } from './testing/callback-rig.js';
import { seedFinishedJob } from './testing/ingest-fixture.js';
import { storePerTest } from './testing/store-per-test.js';

const factories = await testDatabases();
const HOUR = 3600_000;

describe.each(factories.map((f) => [f.kind, f] as const))('attempt numbering across resets on %s', (_kind, factory) => {
  const rig = callbackRigPerTest(factory, { worker: true });

  /** Runs one due attempt, then moves the clock past any wait of the schedule. */
  async function attempt(): Promise<void> {
    expect(await rig.worker.runOnce()).toBe(1);
    rig.now += 7 * HOUR;
  }

  it('goes on from #6 after a reset that followed 5 attempts, with the reset in the log, oldest first, and a fresh round before DEAD', async () => {
    const { deliveryId } = await seedFinishedJob(rig.store, { url: rig.receiver.url }, 'FAILED', T0);
    const id = deliveryId!;
    rig.receiver.reply = () => ({ status: 503 });
    for (let i = 0; i < 5; i++) await attempt();
    expect(await rig.control.deliveries.get({ id })).toMatchObject({ status: 'DEAD', attempts: 5, attempts_in_round: 5 });

    const resetAt = rig.now;
    expect(await rig.control.deliveries.resetDead({ ids: [id], actor: 'ada@ops (cli)' })).toMatchObject({ count: 1 });
    expect(await rig.control.deliveries.get({ id })).toMatchObject({ status: 'PENDING', attempts: 5, attempts_in_round: 0, next_attempt_at: new Date(resetAt).toISOString() });
    expect(await rig.worker.runOnce()).toBe(1);
    // The new round waits as the schedule's start says: 30 s after its first failure, not 6 h.
    expect(await rig.control.deliveries.get({ id })).toMatchObject({ status: 'PENDING', attempts: 6, attempts_in_round: 1, next_attempt_at: new Date(resetAt + 30_000).toISOString() });
    rig.now += 7 * HOUR;
    for (let i = 0; i < 4; i++) await attempt();
    const dead = await rig.control.deliveries.get({ id });
    expect(dead).toMatchObject({ status: 'DEAD', attempts: 10, attempts_in_round: 5 });

    const log = dead.attempt_log.map((e) => (e.kind === 'attempt' ? `#${e.attempt}` : `${e.kind} by ${e.actor} after ${e.attempts_before}`));
    expect(log).toEqual(['#1', '#2', '#3', '#4', '#5', 'reset by ada@ops (cli) after 5', '#6', '#7', '#8', '#9', '#10']);
    const times = dead.attempt_log.map((e) => Date.parse(e.kind === 'attempt' ? e.started_at : e.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(dead.attempt_log[5]).toEqual({ kind: 'reset', actor: 'ada@ops (cli)', at: new Date(resetAt).toISOString(), attempts_before: 5 });
    expect(rig.receiver.received).toHaveLength(10);
  });
});

describe.each(factories.map((f) => [f.kind, f] as const))('migration 4 on a database reset before it, on %s', (_kind, factory) => {
  const db = storePerTest(factory, { migrated: false });

  it('counts every attempt of a row reset under the old numbering, and numbers its attempts in time order', async () => {
    await migrate(db.store, [{ area: 'ingest', migrations: INGEST_MIGRATIONS.slice(0, 3) }]);
    const { deliveryId } = await seedFinishedJob(db.store, { url: 'https://old.example.com/hook' }, 'SUCCEEDED', T0);
    const fresh = (await seedFinishedJob(db.store, { url: 'https://new.example.com/hook' }, 'SUCCEEDED', T0)).deliveryId!;
    // Old behaviour: 5 attempts, a reset to attempts 0, then 2 more numbered #1 and #2 again.
    const numbers = [1, 2, 3, 4, 5, 1, 2];
    for (const [i, n] of numbers.entries()) {
      await db.store.run(`INSERT INTO ingest_callback_attempts (id, delivery_id, attempt, worker, started_at, duration_ms, status_code, error, response_body) VALUES (?, ?, ?, 'w', ?, 5, 503, 'x', NULL)`, [
        `a${i}`,
        deliveryId!,
        n,
        T0 + i * HOUR,
      ]);
    }
    await db.store.run(`INSERT INTO ingest_callback_attempts (id, delivery_id, attempt, worker, started_at, duration_ms, status_code, error, response_body) VALUES ('b0', ?, 1, 'w', ?, 5, 503, 'x', NULL)`, [fresh, T0]);
    await db.store.run('UPDATE ingest_callback_outbox SET attempts = 2 WHERE id = ?', [deliveryId!]);
    await db.store.run('UPDATE ingest_callback_outbox SET attempts = 1 WHERE id = ?', [fresh]);

    await migrate(db.store, [{ area: 'ingest', migrations: INGEST_MIGRATIONS }]);
    const rows = await db.store.all<{ id: string; attempts: number; attempts_before_reset: number }>('SELECT id, attempts, attempts_before_reset FROM ingest_callback_outbox');
    expect(rows.find((r) => r.id === deliveryId)).toMatchObject({ attempts: 7, attempts_before_reset: 5 });
    expect(rows.find((r) => r.id === fresh)).toMatchObject({ attempts: 1, attempts_before_reset: 0 });
    const attempts = await db.store.all<{ attempt: number }>('SELECT attempt FROM ingest_callback_attempts WHERE delivery_id = ? ORDER BY started_at', [deliveryId!]);
    expect(attempts.map((a) => Number(a.attempt))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await db.store.all('SELECT action FROM ingest_delivery_resets')).toEqual([]);
  });
});
