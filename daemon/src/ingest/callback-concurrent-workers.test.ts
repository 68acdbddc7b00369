import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import type { Store } from '../store/types.js';
import { CallbackWorker } from './callback-worker.js';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from './testing/https-receiver.js';
import { QUIET_LOGGER, migratedStore, seedDeliveries } from './testing/ingest-fixture.js';

const factories = await testDatabases();
let tls: TestTls;
beforeAll(() => {
  tls = makeTestTls();
});
afterAll(() => tls.dispose());

describe.each(factories.map((f) => [f.kind, f] as const))('several callback workers on one outbox (%s)', (_kind, factory) => {
  let database: TestDatabase;
  let stores: Store[];
  let receiver: TestReceiver;
  beforeEach(async () => {
    database = factory();
    stores = [await migratedStore(database), await database.open(), await database.open()];
    receiver = await startReceiver(tls);
  });
  afterEach(async () => {
    await receiver.close();
    for (const s of stores) await s.close();
    await database.destroy();
  });

  it('delivers each of 1,000 rows exactly once with two workers on separate connections', async () => {
    const ids = await seedDeliveries(stores[0]!, 1000, receiver.url);
    const workers = [stores[1]!, stores[2]!].map(
      (store, i) =>
        new CallbackWorker({
          name: `callback-worker-${i}`,
          store: () => store,
          logger: QUIET_LOGGER,
          pollIntervalMs: 20,
          batchSize: 25,
          requestTimeoutMs: 5000,
          allowHosts: new Set(['127.0.0.1']),
          caFile: tls.caFile,
          stopGraceMs: 1000,
        }),
    );
    await Promise.all(workers.map((w) => w.start()));
    try {
      const deadline = Date.now() + 60_000;
      while (Number((await stores[0]!.get<{ n: number }>("SELECT COUNT(*) AS n FROM ingest_callback_outbox WHERE status = 'DELIVERED'"))!.n) < 1000) {
        if (Date.now() > deadline) throw new Error('not all delivered within 60 s');
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    const seen = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(seen).toHaveLength(1000);
    expect(new Set(seen).size).toBe(1000);
    expect(new Set(seen)).toEqual(new Set(ids));
    const perWorker = await stores[0]!.all<{ worker: string; n: number }>('SELECT worker, COUNT(*) AS n FROM ingest_callback_attempts GROUP BY worker');
    expect(perWorker.reduce((s, r) => s + Number(r.n), 0)).toBe(1000);
  });
});
