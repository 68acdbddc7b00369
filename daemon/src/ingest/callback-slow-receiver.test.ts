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

describe('a slow receiver', () => {
  it('holds one delivery slot while the worker keeps delivering to others', async () => {
    const database = sqliteTestDatabase();
    const store = await migratedStore(database);
    const receiver = await startReceiver(tls);
    receiver.reply = (req) => (req.path === '/slow' ? { status: 200, delayMs: 4000 } : { status: 200 });
    const worker = new CallbackWorker({
      store: () => store,
      logger: QUIET_LOGGER,
      pollIntervalMs: 20,
      batchSize: 5,
      requestTimeoutMs: 8000,
      allowHosts: new Set(['127.0.0.1']),
      caFile: tls.caFile,
      stopGraceMs: 5000,
    });
    try {
      const [slow] = await seedDeliveries(store, 1, `${receiver.url}/slow`);
      await worker.start();
      while (!receiver.received.some((r) => r.path === '/slow')) await new Promise((r) => setTimeout(r, 10));
      const fast = await seedDeliveries(store, 12, `${receiver.url}/fast`);
      const status = async (id: string) => (await store.get<OutboxRow>('SELECT * FROM ingest_callback_outbox WHERE id = ?', [id]))!.status;
      while ((await Promise.all(fast.map(status))).some((s) => s !== 'DELIVERED')) await new Promise((r) => setTimeout(r, 10));
      // All twelve went through while the slow receiver still held its request.
      expect(await status(slow!)).toBe('PENDING');
      expect(receiver.received.filter((r) => r.path === '/fast')).toHaveLength(12);
    } finally {
      await worker.stop();
      await receiver.close();
      await store.close();
      await database.destroy();
    }
  });
});
