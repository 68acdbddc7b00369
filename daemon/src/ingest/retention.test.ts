import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import type { Store } from '../store/types.js';
import { IngestWorker } from './ingest-worker.js';
import { JobStore } from './job-store.js';
import { RetentionWorker } from './retention-worker.js';
import { UploadFiles } from './upload-files.js';
import { QUIET_LOGGER, migratedStore, seedDeliveries } from './testing/ingest-fixture.js';

const factories = await testDatabases();
const DAY = 24 * 3600_000;
const T0 = Date.UTC(2026, 0, 1);

describe.each(factories.map((f) => [f.kind, f] as const))('retention on %s', (_kind, factory) => {
  let database: TestDatabase;
  let store: Store;
  let now: number;
  let retention: RetentionWorker;
  beforeEach(async () => {
    database = factory();
    store = await migratedStore(database);
    now = T0;
    retention = new RetentionWorker({ store: () => store, uploads: new UploadFiles(join(tmpdir(), `portico-uploads-${process.pid}-absent`)), logger: QUIET_LOGGER, retentionDays: 30, intervalMs: 1000, clock: () => now, poll: false });
  });
  afterEach(async () => {
    await store.close();
    await database.destroy();
  });

  it('removes DELIVERED rows and their attempts past the retention, keeps DEAD, PENDING and recent rows', async () => {
    const ids = await seedDeliveries(store, 4, 'https://r.example.com/h', null, T0);
    const [oldDelivered, deadRow, pendingRow, recentDelivered] = ids as [string, string, string, string];
    await store.run("UPDATE ingest_callback_outbox SET status = 'DELIVERED', attempts = 1, finished_at = ? WHERE id = ?", [T0, oldDelivered]);
    await store.run("UPDATE ingest_callback_outbox SET status = 'DEAD', attempts = 5, finished_at = ? WHERE id = ?", [T0, deadRow]);
    await store.run("UPDATE ingest_callback_outbox SET status = 'DELIVERED', attempts = 1, finished_at = ? WHERE id = ?", [T0 + 20 * DAY, recentDelivered]);
    for (const id of [oldDelivered, recentDelivered]) {
      await store.run("INSERT INTO ingest_callback_attempts (id, delivery_id, attempt, worker, started_at, duration_ms, status_code) VALUES (?, ?, 1, 'w', ?, 5, 200)", [`a-${id}`, id, T0]);
    }
    // An operator action on the old row: its per-row record goes with the row, the action's audit stays.
    await store.run("INSERT INTO ingest_delivery_resets (id, action, actor, at, selector, count) VALUES ('r1', 'retry', 'ops', ?, '{}', 1)", [T0]);
    await store.run("INSERT INTO ingest_delivery_reset_rows (reset_id, delivery_id, attempts_before) VALUES ('r1', ?, 0)", [oldDelivered]);
    now = T0 + 31 * DAY;
    expect(await retention.runOnce()).toEqual({ deliveriesRemoved: 1, attemptsRemoved: 1, filesPurged: 0, partsRemoved: 0 });
    expect(await store.get('SELECT COUNT(*) AS n FROM ingest_delivery_reset_rows')).toEqual({ n: 0 });
    expect(await store.get('SELECT COUNT(*) AS n FROM ingest_delivery_resets')).toEqual({ n: 1 });
    const left = (await store.all<{ id: string }>('SELECT id FROM ingest_callback_outbox')).map((r) => r.id).sort();
    expect(left).toEqual([deadRow, pendingRow, recentDelivered].sort());
    expect(await store.get('SELECT COUNT(*) AS n FROM ingest_callback_attempts')).toEqual({ n: 1 });
    expect(await retention.runOnce()).toEqual({ deliveriesRemoved: 0, attemptsRemoved: 0, filesPurged: 0, partsRemoved: 0 });
  });

  it('purges uploaded file content of jobs finished before the retention; REPARSE then fails clearly', async () => {
    const jobs = new JobStore(store, () => now);
    const scope = { tenantId: 't', workspaceId: 'w' };
    const ds = await jobs.createDataset(scope, 'd');
    const upload = await jobs.createJob(scope, { datasetId: ds.dataset_id, jobKind: 'PARSE_AND_INGEST', tableId: null, fileId: null, request: {}, callback: null }, { filename: 'a.csv', contentType: null, content: new TextEncoder().encode('x\n1\n') });
    const worker = new IngestWorker({ store: () => store, uploads: new UploadFiles(join(tmpdir(), `portico-uploads-${process.pid}-absent`)), logger: QUIET_LOGGER, pollIntervalMs: 10, stopGraceMs: 10, poll: false, clock: () => now });
    await worker.start();
    await worker.runOnce();
    const queuedLater = await jobs.createJob(scope, { datasetId: ds.dataset_id, jobKind: 'PARSE_AND_INGEST', tableId: null, fileId: null, request: {}, callback: null }, { filename: 'b.csv', contentType: null, content: new TextEncoder().encode('y\n2\n') });
    now = T0 + 10 * DAY;
    expect((await retention.runOnce()).filesPurged).toBe(0);
    now = T0 + 40 * DAY;
    expect((await retention.runOnce()).filesPurged).toBe(1);
    const files = await store.all<{ filename: string; purged: number }>('SELECT filename, CASE WHEN content IS NULL THEN 1 ELSE 0 END AS purged FROM ingest_files ORDER BY filename');
    expect(files.map((f) => [f.filename, Number(f.purged)])).toEqual([
      ['a.csv', 1],
      ['b.csv', 0],
    ]);
    const tableId = (await jobs.job(scope, upload.ingest_job_id)).table_id!;
    const reparse = await jobs.createJob(scope, { datasetId: ds.dataset_id, jobKind: 'REPARSE', tableId, fileId: null, request: {}, callback: null });
    await worker.runOnce(); // the queued upload of b.csv
    await worker.runOnce();
    const result = await jobs.job(scope, reparse.ingest_job_id);
    expect(result.status).toBe('FAILED');
    expect(JSON.parse(result.result_json).error).toBe('source file a.csv was removed by retention; upload it again');
    void queuedLater;
    await worker.stop();
  });
});
