import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import type { Store } from '../store/types.js';
import { finishJob, JobStore } from './job-store.js';
import type { JobRow, OutboxRow } from './records.js';
import { migratedStore } from './testing/ingest-fixture.js';

const factories = await testDatabases();
const scope = { tenantId: 't1', workspaceId: 'w1' };

describe.each(factories.map((f) => [f.kind, f] as const))('outbox written with the terminal status on %s', (_kind, factory) => {
  let database: TestDatabase;
  let store: Store;
  let jobs: JobStore;
  beforeEach(async () => {
    database = factory();
    store = await migratedStore(database);
    jobs = new JobStore(store);
  });
  afterEach(async () => {
    await store.close();
    await database.destroy();
  });

  async function queued(callback: boolean) {
    const ds = await jobs.createDataset(scope, 'd');
    return jobs.createJob(scope, {
      datasetId: ds.dataset_id,
      jobKind: 'SAMPLE_REFRESH',
      tableId: null,
      fileId: null,
      request: {},
      callback: callback ? { url: 'https://receiver.example.com/h', secret: 's', headers: {} } : null,
    });
  }

  it('commits the status change and the PENDING row together, with the final job record as payload', async () => {
    const job = await queued(true);
    const result = await store.transaction((tx) => finishJob(tx, job.ingest_job_id, ['QUEUED', 'RUNNING'], 'SUCCEEDED', { ok: true }, 1000));
    const row = (await store.get<OutboxRow>('SELECT * FROM ingest_callback_outbox'))!;
    expect(row).toMatchObject({ id: result!.deliveryId, status: 'PENDING', attempts: 0, event_type: 'ingest.succeeded', next_attempt_at: 1000, created_at: 1000 });
    expect(JSON.parse(row.payload)).toMatchObject({ ingest_job_id: job.ingest_job_id, status: 'SUCCEEDED', result_json: { ok: true } });
  });

  it('leaves neither the status nor the row when the transaction rolls back', async () => {
    const job = await queued(true);
    await expect(
      store.transaction(async (tx) => {
        await finishJob(tx, job.ingest_job_id, ['QUEUED'], 'FAILED', { error: 'x' }, 1000);
        throw new Error('crash after both writes, before commit');
      }),
    ).rejects.toThrow('crash');
    expect((await store.get<JobRow>('SELECT status FROM ingest_jobs'))!.status).toBe('QUEUED');
    expect(await store.get('SELECT COUNT(*) AS n FROM ingest_callback_outbox')).toEqual({ n: 0 });
  });

  it('finishes a job once: a second finish finds it terminal and writes no second row', async () => {
    const job = await queued(true);
    await store.transaction((tx) => finishJob(tx, job.ingest_job_id, ['QUEUED', 'RUNNING'], 'FAILED', {}, 1));
    const again = await store.transaction((tx) => finishJob(tx, job.ingest_job_id, ['QUEUED', 'RUNNING'], 'SUCCEEDED', {}, 2));
    expect(again).toBeNull();
    expect(await store.get('SELECT COUNT(*) AS n FROM ingest_callback_outbox')).toEqual({ n: 1 });
    await expect(
      store.run(
        `INSERT INTO ingest_callback_outbox (id, ingest_job_id, tenant_id, workspace_id, callback_url, callback_headers, event_type, payload, status, attempts, next_attempt_at, created_at)
         SELECT 'dup', ingest_job_id, tenant_id, workspace_id, callback_url, callback_headers, event_type, payload, status, attempts, next_attempt_at, created_at FROM ingest_callback_outbox`,
      ),
    ).rejects.toThrow(/unique/i);
  });

  it('writes no row for a job without a callback target', async () => {
    const job = await queued(false);
    const result = await store.transaction((tx) => finishJob(tx, job.ingest_job_id, ['QUEUED'], 'SUCCEEDED', {}, 1));
    expect(result).toMatchObject({ deliveryId: null, job: { status: 'SUCCEEDED' } });
    expect(await store.get('SELECT COUNT(*) AS n FROM ingest_callback_outbox')).toEqual({ n: 0 });
  });
});
