import { describe, expect, it } from 'vitest';
import { testDatabases } from '../store/testing/databases.js';
import type { AttemptRow, OutboxRow } from './records.js';
import { callbackRigPerTest, T0 } from './testing/callback-rig.js';
import { seedFinishedJob } from './testing/ingest-fixture.js';

const factories = await testDatabases();
const WAITS_S = [30, 300, 3600, 21600];

describe.each(factories.map((f) => [f.kind, f] as const))('callback backoff on %s', (_kind, factory) => {
  const rig = callbackRigPerTest(factory, { worker: true });

  const row = async () => (await rig.store.get<OutboxRow>('SELECT * FROM ingest_callback_outbox'))!;

  it('retries after 30 s, 5 min, 1 h and 6 h, each measured from the failure, then delivers', async () => {
    await seedFinishedJob(rig.store, { url: rig.receiver.url }, 'FAILED', T0);
    rig.receiver.reply = (_req, i) => (i < 4 ? { status: 500 } : { status: 204 });
    expect(await rig.worker.runOnce()).toBe(1);
    for (const [i, wait] of WAITS_S.entries()) {
      const failedAt = rig.now;
      expect(await row()).toMatchObject({ status: 'PENDING', attempts: i + 1, next_attempt_at: failedAt + wait * 1000 });
      rig.now = failedAt + wait * 1000 - 1;
      expect(await rig.worker.runOnce(), `not due 1 ms before wait ${wait}s`).toBe(0);
      rig.now += 1;
      expect(await rig.worker.runOnce()).toBe(1);
    }
    expect(await row()).toMatchObject({ status: 'DELIVERED', attempts: 5, last_status_code: 204, finished_at: rig.now });
    const attempts = await rig.store.all<AttemptRow>('SELECT * FROM ingest_callback_attempts ORDER BY attempt');
    expect(attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 500],
      [5, 204],
    ]);
    const starts = attempts.map((a) => Number(a.started_at) - T0);
    expect(starts).toEqual([0, 30_000, 330_000, 3_930_000, 25_530_000]);
  });

  it('marks the row DEAD at the 5th failure and never makes a 6th attempt', async () => {
    await seedFinishedJob(rig.store, { url: rig.receiver.url }, 'SUCCEEDED', T0);
    rig.receiver.reply = () => ({ status: 503 });
    for (let i = 0; i < 5; i++) {
      expect(await rig.worker.runOnce()).toBe(1);
      rig.now += 7 * 3600_000;
    }
    expect(await row()).toMatchObject({ status: 'DEAD', attempts: 5, last_status_code: 503 });
    expect((await row()).finished_at).not.toBeNull();
    rig.now += 365 * 24 * 3600_000;
    expect(await rig.worker.runOnce()).toBe(0);
    expect(rig.receiver.received).toHaveLength(5);
    expect(await rig.store.get('SELECT COUNT(*) AS n FROM ingest_callback_attempts')).toEqual({ n: 5 });
  });
});
