import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqliteTestDatabase } from '../store/testing/databases.js';
import { SqliteStore } from '../store/sqlite-store.js';
import type { Queryable, Store } from '../store/types.js';
import type { PublishInput } from '../control/event-bus.js';
import { leaseDurationMs } from './callback-worker.js';
import { DeliveryEvents } from './delivery-events.js';
import type { OutboxRow } from './records.js';
import { callbackRigPerTest } from './testing/callback-rig.js';
import type { TestReceiver } from './testing/https-receiver.js';
import { seedDeliveries, testWorker } from './testing/ingest-fixture.js';
import { seeingStatements, withTransactions } from './testing/store-per-test.js';

/**
 * The store as the worker sees it, counting the transactions that write attempts (claims alone,
 * which an idle worker runs every poll interval, are not counted: how many there are is timing).
 */
function countingTransactions(store: Store): { store: Store; transactions: () => number } {
  let transactions = 0;
  const writesAttempts = (sql: string): boolean => sql.includes('INSERT INTO ingest_callback_attempts');
  const counted = withTransactions(store, <T,>(fn: (tx: Queryable) => Promise<T>) => {
    let counted = false;
    const count = (sql: string): void => {
      if (counted || !writesAttempts(sql)) return;
      counted = true;
      transactions += 1;
    };
    return store.transaction((tx) => fn(seeingStatements(tx, count)));
  });
  return { store: counted, transactions: () => transactions };
}

/** Answers every request only once `size` of them are waiting (or all that are left), so results arrive together. */
function answerInRounds(receiver: TestReceiver, size: number, total: number): void {
  let release: () => void = () => {};
  let round = new Promise<void>((r) => (release = r));
  receiver.reply = (_req, index) => {
    const after = round;
    if (receiver.pending === size || index === total - 1) {
      release();
      round = new Promise<void>((r) => (release = r));
    }
    return { status: 200, after };
  };
}

describe('group commits of callback results (sqlite)', () => {
  const rig = callbackRigPerTest(sqliteTestDatabase);

  it('writes the results of a batch answered together in a few transactions, not one per delivery', async () => {
    const ids = await seedDeliveries(rig.store, 40, `${rig.receiver.url}/hook`);
    answerInRounds(rig.receiver, 20, 40);
    const counting = countingTransactions(rig.store);
    const published: PublishInput[] = [];
    const events = new DeliveryEvents((e) => published.push(e));
    const worker = testWorker(counting.store, rig.tls.caFile, { batchSize: 20, poll: true, pollIntervalMs: 20, onDelivery: (row, result) => events.recorded(row, result) });
    await worker.start();
    try {
      while (Number((await rig.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM ingest_callback_outbox WHERE status = 'DELIVERED'"))!.n) < 40) {
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await worker.stop();
    }
    expect(new Set(rig.receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
    // Results answered together share transactions: without group commit each of the 40 results
    // is a transaction of its own. (Claims alone are not counted: idle polls depend on timing.)
    expect(counting.transactions()).toBeGreaterThan(0);
    expect(counting.transactions()).toBeLessThan(ids.length);
    // A group commit's deliveries share one delivery.state event, which counts them all.
    events.flush();
    const counted = published.map((e) => (typeof e.details?.deliveries === 'number' ? e.details.deliveries : 1));
    expect(counted.reduce((a, b) => a + b, 0)).toBe(ids.length);
    expect(published.length).toBeLessThan(ids.length);
  });

  it('re-sends the deliveries of a group commit that failed, after their lease; none is lost', async () => {
    const file = rig.database.address.file!;
    const ids = await seedDeliveries(rig.store, 3, `${rig.receiver.url}/hook`, null, 1000);
    let now = 1000;
    // A short busy timeout: the commit gives up while another connection holds the write lock.
    const impatient = new SqliteStore({ file, busyTimeoutMs: 100 });
    const locker = new Database(file);
    const worker = testWorker(impatient, rig.tls.caFile, { clock: () => now, batchSize: 3 });
    await worker.start();
    try {
      // All three are answered once the third arrived and the lock is taken: no result can be written before.
      let locked!: () => void;
      const lockTaken = new Promise<void>((r) => (locked = r));
      rig.receiver.reply = (_req, index) => {
        if (index === 2) {
          locker.exec('BEGIN IMMEDIATE');
          locked();
        }
        return { status: 200, after: lockTaken };
      };
      expect(await worker.runOnce()).toBe(3);
      locker.exec('ROLLBACK');
      const afterFailure = await rig.store.all<OutboxRow>('SELECT * FROM ingest_callback_outbox');
      expect(afterFailure.map((r) => [r.status, Number(r.attempts), r.lease_token !== null])).toEqual([
        ['PENDING', 0, true],
        ['PENDING', 0, true],
        ['PENDING', 0, true],
      ]);
      expect(await worker.runOnce()).toBe(0); // still leased
      now += leaseDurationMs(2000) + 1;
      rig.receiver.reply = () => ({ status: 200 });
      expect(await worker.runOnce()).toBe(3);
    } finally {
      await worker.stop();
      locker.close();
      await impatient.close();
    }
    const rows = await rig.store.all<OutboxRow>('SELECT * FROM ingest_callback_outbox');
    expect(rows.map((r) => [r.status, Number(r.attempts)])).toEqual([
      ['DELIVERED', 1],
      ['DELIVERED', 1],
      ['DELIVERED', 1],
    ]);
    // At least once: each webhook-id reached the receiver twice, none was lost.
    const seen = rig.receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(seen.sort()).toEqual([...ids, ...ids].sort());
  });
});
