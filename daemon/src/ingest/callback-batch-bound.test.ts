import { describe, expect, it } from 'vitest';
import { sqliteTestDatabase } from '../store/testing/databases.js';
import type { Queryable, Store } from '../store/types.js';
import type { ClaimedRow } from './outbox.js';
import { callbackRigPerTest } from './testing/callback-rig.js';
import { startReceiver, type TestReceiver } from './testing/https-receiver.js';
import { seedDeliveries, testWorker } from './testing/ingest-fixture.js';
import { seeingStatements, withTransactions } from './testing/store-per-test.js';

const BATCH = 5;

/**
 * The store as the worker sees it, where the first claim of its own (a transaction of one
 * statement) started after `armClaim()` is taken in the database at once but answers the worker
 * only on `releaseClaim()`: a slow claim round trip, during which a group commit can run.
 */
function holdingOneClaim(store: Store) {
  let armed = false;
  let taken = false;
  let claimHeld!: (rows: ClaimedRow[]) => void;
  const held = new Promise<ClaimedRow[]>((resolve) => (claimHeld = resolve));
  let releaseClaim!: () => void;
  const released = new Promise<void>((resolve) => (releaseClaim = resolve));
  const wrapped = withTransactions(store, async <T,>(fn: (tx: Queryable) => Promise<T>) => {
    const eligible = armed;
    let statements = 0;
    const result = await store.transaction((tx) => fn(seeingStatements(tx, () => (statements += 1))));
    if (eligible && !taken && statements === 1) {
      taken = true;
      claimHeld(result as ClaimedRow[]);
      await released;
    }
    return result;
  });
  return { store: wrapped, armClaim: () => (armed = true), held, releaseClaim };
}

describe('deliveries in flight (sqlite)', () => {
  const rig = callbackRigPerTest(sqliteTestDatabase);

  it('never exceed the batch while a group commit refills during a slow claim of the polling loop', async () => {
    // Two receivers, rows alternating between them, so the per-origin connection cap (the batch)
    // never hides a request over the batch from the count.
    const receivers: TestReceiver[] = [rig.receiver, await startReceiver(rig.tls)];
    const first = rig.now;
    const later = first + 1000;
    try {
      const seeded: string[] = [];
      for (let i = 0; i < 3; i++) seeded.push(...(await seedDeliveries(rig.store, 1, `${receivers[i % 2]!.url}/hook`, null, first - 10 + i)));
      for (let i = 0; i < 20; i++) seeded.push(...(await seedDeliveries(rig.store, 1, `${receivers[i % 2]!.url}/hook`, null, later + i)));

      let maxUnanswered = 0;
      let answerFirst!: () => void;
      const firstAnswered = new Promise<void>((resolve) => (answerFirst = resolve));
      let answerRest!: () => void;
      const restAnswered = new Promise<void>((resolve) => (answerRest = resolve));
      const received = () => receivers.flatMap((r) => r.received.map((c) => String(c.headers['webhook-id'])));
      for (const receiver of receivers) {
        receiver.reply = (req) => {
          maxUnanswered = Math.max(maxUnanswered, receivers.reduce((n, r) => n + r.pending, 0));
          return { status: 200, after: seeded.indexOf(String(req.headers['webhook-id'])) < 3 ? firstAnswered : restAnswered };
        };
      }

      const holding = holdingOneClaim(rig.store);
      const worker = testWorker(holding.store, rig.tls.caFile, { batchSize: BATCH, poll: true, pollIntervalMs: 20, clock: () => rig.now });
      await worker.start();
      try {
        // The loop claimed the three due rows (fewer than a batch) and polls for more.
        await expect.poll(() => received().length).toBe(3);
        // In one step: the next claim of the loop is held, and the other twenty are due for it.
        holding.armClaim();
        rig.now = later + 100;
        const heldRows = await holding.held;
        expect(heldRows).toHaveLength(BATCH - 3);
        // The three answers are written in group commits that refill the batch while the loop's claim is out.
        answerFirst();
        const deliveredFirst = async () => (await rig.store.all<{ id: string }>("SELECT id FROM ingest_callback_outbox WHERE status = 'DELIVERED'")).map((r) => r.id);
        await expect.poll(deliveredFirst).toEqual(expect.arrayContaining(seeded.slice(0, 3)));
        holding.releaseClaim();
        // Every row leased now has reached its receiver: what is in flight is all unanswered there.
        const leased = async () => (await rig.store.all<{ id: string }>("SELECT id FROM ingest_callback_outbox WHERE status = 'PENDING' AND lease_token IS NOT NULL")).map((r) => r.id);
        await expect.poll(async () => (await leased()).every((id) => received().includes(id)) && heldRows.every((r) => received().includes(r.id))).toBe(true);
        answerRest();
        await expect.poll(async () => (await deliveredFirst()).length, { timeout: 20_000 }).toBe(seeded.length);
      } finally {
        answerFirst();
        answerRest();
        await worker.stop();
      }
      expect(maxUnanswered).toBeLessThanOrEqual(BATCH);
      expect(new Set(received())).toEqual(new Set(seeded));
    } finally {
      await receivers[1]!.close();
    }
  });
});
