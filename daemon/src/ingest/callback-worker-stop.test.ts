import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteTestDatabase } from '../store/testing/databases.js';
import { CallbackWorker } from './callback-worker.js';
import type { OutboxRow } from './records.js';
import { makeTestTls, startReceiver, type TestTls } from './testing/https-receiver.js';
import { QUIET_LOGGER, migratedStore, seedDeliveries } from './testing/ingest-fixture.js';

let tls: TestTls;
beforeAll(() => {
  tls = makeTestTls();
});
afterAll(() => tls.dispose());

describe('stopping a callback worker', () => {
  it('aborts attempts still running after the grace and gives their rows back uncounted', async () => {
    const database = sqliteTestDatabase();
    const store = await migratedStore(database);
    const receiver = await startReceiver(tls);
    receiver.reply = () => ({ status: 200, delayMs: 30_000 });
    const worker = new CallbackWorker({
      store: () => store,
      logger: QUIET_LOGGER,
      pollIntervalMs: 20,
      batchSize: 5,
      requestTimeoutMs: 20_000,
      allowHosts: new Set(['127.0.0.1']),
      caFile: tls.caFile,
      stopGraceMs: 100,
    });
    try {
      const ids = await seedDeliveries(store, 3, `${receiver.url}/held`);
      await worker.start();
      while (receiver.received.length < 3) await new Promise((r) => setTimeout(r, 10));
      await worker.stop();
      const rows = await store.all<OutboxRow>('SELECT * FROM ingest_callback_outbox ORDER BY id');
      expect(rows.map((r) => [r.status, r.attempts, r.lease_token])).toEqual(ids.map(() => ['PENDING', 0, null]));
      expect(await store.get('SELECT COUNT(*) AS n FROM ingest_callback_attempts')).toEqual({ n: 0 });
    } finally {
      await receiver.close();
      await store.close();
      await database.destroy();
    }
  });
});
