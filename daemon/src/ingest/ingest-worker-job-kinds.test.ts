import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import type { Store } from '../store/types.js';
import { IngestWorker } from './ingest-worker.js';
import { JobStore } from './job-store.js';
import { jobRead, type JobRow, type OutboxRow } from './records.js';
import { QUIET_LOGGER, migratedStore } from './testing/ingest-fixture.js';
import type { IngestJobRead, JobKind } from './types.js';
import { UploadFiles } from './upload-files.js';

const factories = await testDatabases();
const scope = { tenantId: 't1', workspaceId: 'w1' };
const CUSTOMERS = 'id,name,vip\n1,Ada,true\n2,Brian,false\n3,Chen,\n';
const ORDERS = 'order_id,customer_id,total,placed\n10,1,9.5,2024-01-02\n11,1,20,2024-01-03\n12,3,7.25,2024-02-01\n';

describe.each(factories.map((f) => [f().kind, f] as const))('ingest worker job kinds on %s', (_kind, factory) => {
  let database: TestDatabase;
  let store: Store;
  let jobs: JobStore;
  let worker: IngestWorker;
  let datasetId: string;
  let dataDir: string;
  let uploads: UploadFiles;
  beforeEach(async () => {
    database = factory();
    store = await migratedStore(database);
    jobs = new JobStore(store);
    dataDir = mkdtempSync(join(tmpdir(), 'portico-worker-'));
    uploads = new UploadFiles(join(dataDir, 'uploads'));
    worker = new IngestWorker({ store: () => store, uploads, logger: QUIET_LOGGER, pollIntervalMs: 50, stopGraceMs: 100, poll: false });
    await worker.start();
    datasetId = (await jobs.createDataset(scope, 'shop')).dataset_id;
  });
  afterEach(async () => {
    await worker.stop();
    await store.close();
    await database.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const callback = { url: 'https://receiver.example.com/h', secret: null, headers: {} };
  /** An upload as the API stores it: streamed into the data dir, then placed with its job. */
  async function upload(name: string, text: string | Uint8Array) {
    const staged = await uploads.stage();
    await staged.write(Buffer.from(typeof text === 'string' ? new TextEncoder().encode(text) : text));
    return jobs.createJob(scope, { datasetId, jobKind: 'PARSE_AND_INGEST', tableId: null, fileId: null, request: {}, callback }, { filename: name, contentType: 'text/csv', upload: staged });
  }
  async function queue(jobKind: JobKind, tableId: string | null = null) {
    return jobs.createJob(scope, { datasetId, jobKind, tableId, fileId: null, request: {}, callback });
  }
  async function run(job: IngestJobRead): Promise<IngestJobRead> {
    expect(await worker.runOnce()).toBe(job.ingest_job_id);
    return jobRead((await store.get<JobRow>('SELECT * FROM ingest_jobs WHERE ingest_job_id = ?', [job.ingest_job_id]))!);
  }

  it('PARSE_AND_INGEST makes a typed table and a snapshot; REPARSE a new snapshot; each queues ingest.succeeded', async () => {
    const parsed = await run(await upload('customers.csv', CUSTOMERS));
    expect(parsed).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
    expect(parsed.table_id).toBe(parsed.result_json.table_id);
    expect(parsed.snapshot_id).toBe(parsed.result_json.snapshot_id);
    expect(parsed.result_json).toMatchObject({ table_name: 'customers', row_count: 3, columns: [{ name: 'id', type: 'integer', nullable: false }, { name: 'name', type: 'text' }, { name: 'vip', type: 'boolean', nullable: true }] });
    const reparsed = await run(await queue('REPARSE', parsed.table_id));
    expect(reparsed.status).toBe('SUCCEEDED');
    expect(reparsed.result_json.previous_snapshot_id).toBe(parsed.snapshot_id);
    expect(reparsed.snapshot_id).not.toBe(parsed.snapshot_id);
    const rows = await store.all<OutboxRow>('SELECT * FROM ingest_callback_outbox ORDER BY created_at');
    expect(rows.map((r) => [r.ingest_job_id, r.event_type])).toEqual([
      [parsed.ingest_job_id, 'ingest.succeeded'],
      [reparsed.ingest_job_id, 'ingest.succeeded'],
    ]);
  });

  it('DESCRIBE_PASS, SAMPLE_REFRESH and RELATION_PASS report statistics, samples and inclusion relations', async () => {
    await run(await upload('customers.csv', CUSTOMERS));
    await run(await upload('orders.csv', ORDERS));
    const described = await run(await queue('DESCRIBE_PASS'));
    const orders = (described.result_json.tables as Array<{ name: string; columns: Array<Record<string, unknown>> }>).find((t) => t.name === 'orders')!;
    expect(orders.columns.find((c) => c.name === 'total')).toMatchObject({ type: 'number', count: 3, nulls: 0, distinct: 3, min: 7.25, max: 20 });
    expect(orders.columns.find((c) => c.name === 'placed')).toMatchObject({ type: 'date', min: '2024-01-02', max: '2024-02-01' });
    const sampled = await run(await queue('SAMPLE_REFRESH'));
    // Two uploads in the same millisecond tie on created_at, so the tables are found by name.
    expect((sampled.result_json.tables as Array<{ name: string; sample: unknown[][] }>).find((t) => t.name === 'customers')!.sample[0]).toEqual([1, 'Ada', true]);
    const related = await run(await queue('RELATION_PASS'));
    expect(related.result_json.relations).toEqual([
      expect.objectContaining({ from_table: 'orders', from_column: 'customer_id', to_table: 'customers', to_column: 'id', coverage: 1 }),
    ]);
  });

  it('fails a bad file with a clear result_json.error and queues ingest.failed', async () => {
    const bad = await run(await upload('broken.csv', 'a,b\n1,2,3\n'));
    expect(bad.status).toBe('FAILED');
    expect(bad.result_json.error).toBe('broken.csv: line 2 has 3 fields; the header has 2');
    expect((await store.get<OutboxRow>('SELECT event_type FROM ingest_callback_outbox'))!.event_type).toBe('ingest.failed');
    const binary = await run(await upload('blob.csv', new Uint8Array([0xff, 0xfe, 0x00, 0x41])));
    expect(binary.result_json.error).toMatch(/not UTF-8/);
    const nothing = await run(await queue('DESCRIBE_PASS'));
    expect(nothing).toMatchObject({ status: 'FAILED', result_json: { error: 'the dataset has no ingested tables yet; upload a file first' } });
  });

  it('reads a file kept in the database (uploads from before migration 5) the same way', async () => {
    const legacy = await jobs.createJob(scope, { datasetId, jobKind: 'PARSE_AND_INGEST', tableId: null, fileId: null, request: {}, callback }, { filename: 'customers.csv', contentType: 'text/csv', content: new TextEncoder().encode(CUSTOMERS) });
    expect(await run(legacy)).toMatchObject({ status: 'SUCCEEDED', result_json: { table_name: 'customers', row_count: 3 } });
  });

  it('fails a job whose file is missing from the data dir or changed since its upload, saying what to do', async () => {
    const fileOf = async (job: IngestJobRead) => (await store.get<{ file_id: string }>('SELECT file_id FROM ingest_jobs WHERE ingest_job_id = ?', [job.ingest_job_id]))!.file_id;
    const missing = await upload('gone.csv', CUSTOMERS);
    rmSync(uploads.pathOf(await fileOf(missing)));
    expect((await run(missing)).result_json.error).toBe(
      `source file gone.csv is not in ${uploads.dir} on this machine: every process that runs the ingest API, an ingest worker or the retention worker must share the data dir's uploads folder (docs/ingest-callbacks.md, "Uploads"); upload it again`,
    );
    const edited = await upload('edited.csv', CUSTOMERS);
    writeFileSync(uploads.pathOf(await fileOf(edited)), CUSTOMERS.replace('Ada', 'Bob'));
    expect((await run(edited)).result_json.error).toBe('source file edited.csv changed on disk since it was uploaded (its SHA-256 differs from the upload); upload it again');
    const cut = await upload('cut.csv', CUSTOMERS);
    writeFileSync(uploads.pathOf(await fileOf(cut)), CUSTOMERS.slice(0, 10));
    expect((await run(cut)).result_json.error).toBe(`source file cut.csv changed on disk since it was uploaded (it has 10 of the ${CUSTOMERS.length} bytes uploaded); upload it again`);
  });

  it('discards the result of a job cancelled while it ran: one terminal status, one outbox row', async () => {
    const job = await upload('customers.csv', CUSTOMERS);
    const slow = new IngestWorker({
      store: () => store,
      uploads,
      logger: QUIET_LOGGER,
      pollIntervalMs: 50,
      stopGraceMs: 100,
      poll: false,
      onStarted: () => void cancelling.push(jobs.cancel(scope, job.ingest_job_id, 'tester')),
    });
    const cancelling: Array<Promise<unknown>> = [];
    await slow.start();
    await slow.runOnce();
    await Promise.all(cancelling);
    const row = (await store.get<JobRow>('SELECT * FROM ingest_jobs WHERE ingest_job_id = ?', [job.ingest_job_id]))!;
    expect(row.status).toBe('CANCELLED');
    expect(row.snapshot_id).toBeNull();
    expect(await store.get('SELECT COUNT(*) AS n FROM ingest_tables')).toEqual({ n: 0 });
    expect(await store.all('SELECT event_type FROM ingest_callback_outbox')).toEqual([{ event_type: 'ingest.failed' }]);
  });
});
