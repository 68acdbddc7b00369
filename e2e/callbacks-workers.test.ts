import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresReachable } from '../daemon/src/store/testing/databases.js';
import type { Store } from '../daemon/src/store/types.js';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from '../daemon/src/ingest/testing/https-receiver.js';
import { seedDeliveries } from '../daemon/src/ingest/testing/ingest-fixture.js';
import { daemonDatabase, startDaemon, waitUntil, type DaemonHandle } from './harness.js';

const withPostgres = await postgresReachable();
let tls: TestTls;
let receiver: TestReceiver;
beforeAll(async () => {
  tls = makeTestTls();
  receiver = await startReceiver(tls);
});
afterAll(async () => {
  await receiver.close();
  tls.dispose();
});

const cases = [
  ['sqlite', 2],
  ['sqlite', 4],
  ...(withPostgres ? ([['postgres', 2], ['postgres', 4]] as const) : []),
] as const;

describe.each(cases)('callback-worker processes on %s', (kind, processes) => {
  it(`${processes} processes deliver each of 1,000 rows exactly once`, async () => {
    receiver.received.length = 0;
    const database = await daemonDatabase(kind);
    const env: Record<string, string> = {
      SERVICE_CALLBACK_CA_FILE: tls.caFile,
      SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1',
      SERVICE_CALLBACK_POLL_INTERVAL_S: '0.05',
      ...database.env,
    };
    let sharedDir: string | undefined;
    const daemons: DaemonHandle[] = [];
    let store: Store | null = null;
    try {
      for (let i = 0; i < processes; i++) {
        const d = await startDaemon({ args: ['--mode', 'callback-worker'], env, ...(sharedDir ? { dataDir: sharedDir } : {}) });
        sharedDir ??= d.dataDir;
        daemons.push(d);
      }
      store = await database.open(sharedDir!);
      const ids = await seedDeliveries(store, 1000, `${receiver.url}/hook`);
      const s = store;
      await waitUntil(
        async () => Number((await s.get<{ n: number }>("SELECT COUNT(*) AS n FROM ingest_callback_outbox WHERE status = 'DELIVERED'"))!.n) === 1000,
        90_000,
        () => `1,000 deliveries; receiver has ${receiver.received.length}`,
      );
      const failed = await s.all<{ error: string }>('SELECT error FROM ingest_callback_attempts WHERE error IS NOT NULL');
      if (failed.length > 0) console.log(`${kind}, ${processes}: failed attempts: ${failed.map((f) => f.error).join(' | ')}`);
      const seen = receiver.received.map((r) => String(r.headers['webhook-id']));
      expect(seen).toHaveLength(1000);
      expect(new Set(seen)).toEqual(new Set(ids));
      const perWorker = await s.all<{ worker: string; n: number }>('SELECT worker, COUNT(*) AS n FROM ingest_callback_attempts GROUP BY worker ORDER BY worker');
      expect(perWorker.reduce((sum, r) => sum + Number(r.n), 0)).toBe(1000);
      console.log(`${kind}, ${processes} worker processes: attempts per worker ${perWorker.map((r) => r.n).join(' / ')}`);
      for (const d of daemons) expect(await d.stop('SIGTERM')).toBe(0);
      for (const d of daemons) expect(d.logs()).not.toMatch(/lease lost/);
    } finally {
      await store?.close();
      for (const d of daemons.reverse()) await d.dispose();
      await database.drop();
    }
  });
});
