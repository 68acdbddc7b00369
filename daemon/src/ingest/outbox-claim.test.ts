import { describe, expect, it } from 'vitest';
import { testDatabases } from '../store/testing/databases.js';
import { claimDue, type ClaimedRow, type Lease } from './outbox.js';
import type { OutboxRow } from './records.js';
import { seedDeliveries } from './testing/ingest-fixture.js';
import { storePerTest } from './testing/store-per-test.js';

const factories = await testDatabases();
const URL_ = 'https://receiver.example.com/hook';
const lease = (token: string): Lease => ({ owner: `worker-${token}`, token });

describe.each(factories.map((f) => [f.kind, f] as const))('claiming due outbox rows on %s', (kind, factory) => {
  const db = storePerTest(factory);

  const leased = () => db.store.all<Pick<OutboxRow, 'id' | 'lease_token' | 'lease_expires_at'>>('SELECT id, lease_token, lease_expires_at FROM ingest_callback_outbox WHERE lease_token IS NOT NULL');

  it('claims up to the limit in one call, oldest due first, all under one lease', async () => {
    const late = await seedDeliveries(db.store, 3, URL_, null, 2000);
    const early = await seedDeliveries(db.store, 3, URL_, null, 1000);
    await seedDeliveries(db.store, 2, URL_, null, 9000); // not due yet
    const rows = await claimDue(db.store, lease('a'), 5000, 65_000, 4);
    expect(rows.map((r) => Number(r.next_attempt_at))).toEqual([1000, 1000, 1000, 2000]);
    expect(new Set(rows.slice(0, 3).map((r) => r.id))).toEqual(new Set(early));
    expect(late).toContain(rows[3]!.id);
    expect(await leased()).toHaveLength(4);
    for (const r of await leased()) expect(r).toMatchObject({ lease_token: 'a', lease_expires_at: 65_000 });
  });

  it('leaves rows under a live lease to their claimer and takes them back once the lease expired', async () => {
    const ids = await seedDeliveries(db.store, 5, URL_, null, 1000);
    const first = await claimDue(db.store, lease('a'), 5000, 65_000, 3);
    const second = await claimDue(db.store, lease('b'), 5000, 500_000, 25);
    expect(second).toHaveLength(2);
    expect(new Set([...first, ...second].map((r) => r.id))).toEqual(new Set(ids));
    expect(await claimDue(db.store, lease('c'), 6000, 66_000, 25)).toEqual([]);
    // Worker a died: its lease ran out, its rows are due again.
    const retaken = await claimDue(db.store, lease('d'), 65_000, 125_000, 25);
    expect(retaken.map((r) => r.id).sort()).toEqual(first.map((r) => r.id).sort());
  });

  it.skipIf(kind !== 'postgres')('skips rows another claimer holds locked instead of waiting for its transaction', async () => {
    await seedDeliveries(db.store, 6, URL_, null, 1000);
    const other = await db.database.open();
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let claimedInside: ClaimedRow[] = [];
      const inside = other.transaction(async (tx) => {
        claimedInside = await claimDue(other, lease('a'), 5000, 65_000, 3, tx);
        await held;
      });
      while (claimedInside.length === 0) await new Promise((r) => setTimeout(r, 10));
      // Waiting on the locked rows would never end: the transaction holding them waits for this claim.
      const outside = await claimDue(db.store, lease('b'), 5000, 65_000, 25);
      release();
      await inside;
      expect(outside).toHaveLength(3);
      expect(new Set([...claimedInside, ...outside].map((r) => r.id)).size).toBe(6);
    } finally {
      await other.close();
    }
  });
});
