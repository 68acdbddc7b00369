import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import type { Store } from '../store/types.js';
import { IngestWorker } from './ingest-worker.js';
import { RetentionWorker } from './retention-worker.js';
import { JobStore } from './job-store.js';
import { jobRead, type JobRow, type OutboxRow } from './records.js';
import { QUIET_LOGGER, migratedStore } from './testing/ingest-fixture.js';
import type { IngestJobRead, JobKind } from './types.js';
import { UploadFiles } from './upload-files.js';

const factories = await testDatabases();
const scope = { tenantId: 't1', workspaceId: 'w1' };
const CUSTOMERS = 'id,name,vip\n1,Ada,true\n2,Brian,false\n3,Chen,\n';
const ORDERS = 'order_id,customer_id,total,placed\n10,1,9.5,2024-01-02\n11,1,20,2024-01-03\n12,3,7.25,2024-02-01\n';

describe.each(factories.map((f) => [f.kind, f] as const))('ingest worker job kinds on %s', (_kind, factory) => {
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
    // The snapshot's parts, stored while the file was read, went with the result.
    expect(await partCount()).toBe(0);
    expect(await store.all('SELECT event_type FROM ingest_callback_outbox')).toEqual([{ event_type: 'ingest.failed' }]);
  });

  const partCount = async () => Number((await store.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM ingest_snapshot_parts'))!.n);
  /** A worker whose snapshots are stored in parts of `rows` rows. */
  async function smallPartsWorker(rows: number): Promise<IngestWorker> {
    const small = new IngestWorker({ store: () => store, uploads, partLimits: { rows, chars: 1024 * 1024 }, logger: QUIET_LOGGER, pollIntervalMs: 50, stopGraceMs: 100, poll: false });
    await small.start();
    return small;
  }
  async function runWith(runner: IngestWorker, job: IngestJobRead): Promise<IngestJobRead> {
    expect(await runner.runOnce()).toBe(job.ingest_job_id);
    return jobRead((await store.get<JobRow>('SELECT * FROM ingest_jobs WHERE ingest_job_id = ?', [job.ingest_job_id]))!);
  }

  it('stores a snapshot in parts and reads it back a part at a time: the same statistics, samples and relations as in one part', async () => {
    const people = ['id,name,score,joined', ...Array.from({ length: 23 }, (_, k) => `${k + 1},p${k % 7},${k % 5 === 0 ? '' : k * 1.5},2024-01-${String((k % 28) + 1).padStart(2, '0')}`)].join('\n');
    const visits = ['visit,person', ...Array.from({ length: 17 }, (_, k) => `${100 + k},${(k % 23) + 1}`)].join('\n');
    const results = [];
    for (const runner of [worker, await smallPartsWorker(2)]) {
      const dataset = (await jobs.createDataset(scope, 'parts')).dataset_id;
      const make = async (name: string, text: string) => {
        const staged = await uploads.stage();
        await staged.write(Buffer.from(text));
        return jobs.createJob(scope, { datasetId: dataset, jobKind: 'PARSE_AND_INGEST', tableId: null, fileId: null, request: {}, callback }, { filename: name, contentType: 'text/csv', upload: staged });
      };
      const ingested = await runWith(runner, await make('people.csv', people));
      await runWith(runner, await make('visits.csv', visits));
      const parts = await store.get<{ part_count: number }>('SELECT part_count FROM ingest_snapshots WHERE snapshot_id = ?', [ingested.snapshot_id]);
      const later = (kind: JobKind) => jobs.createJob(scope, { datasetId: dataset, jobKind: kind, tableId: null, fileId: null, request: {}, callback });
      const described = (await runWith(runner, await later('DESCRIBE_PASS'))).result_json.tables as Array<{ name: string }>;
      const sampled = (await runWith(runner, await later('SAMPLE_REFRESH'))).result_json.tables as Array<{ name: string }>;
      const related = (await runWith(runner, await later('RELATION_PASS'))).result_json.relations;
      const strip = (tables: Array<{ name: string }>) => tables.map(({ name, ...t }) => ({ name, ...t, table_id: undefined, snapshot_id: undefined })).sort((a, b) => a.name.localeCompare(b.name));
      results.push({ parts: Number(parts!.part_count), described: strip(described), sampled: strip(sampled), related: (related as Array<Record<string, unknown>>).map(({ from_table_id: _f, to_table_id: _t, ...r }) => r) });
    }
    const [whole, inParts] = results;
    expect(whole!.parts).toBe(1);
    expect(inParts!.parts).toBe(12);
    expect(inParts!.described).toEqual(whole!.described);
    expect(inParts!.sampled).toEqual(whole!.sampled);
    expect((inParts!.sampled[0] as unknown as { sample: unknown[] }).sample).toHaveLength(10);
    expect(inParts!.related).toEqual(whole!.related);
    expect(whole!.related).toEqual([expect.objectContaining({ from_table: 'visits', from_column: 'person', to_table: 'people', to_column: 'id', coverage: 1 })]);
    expect(whole!.described.find((t) => t.name === 'people')).toMatchObject({
      row_count: 23,
      columns: [
        { name: 'id', type: 'integer', count: 23, nulls: 0, distinct: 23, min: 1, max: 23, mean: 12 },
        { name: 'name', type: 'text', distinct: 7, min_length: 2, max_length: 2 },
        { name: 'score', type: 'number', nulls: 5, min: 1.5, max: 33 },
        { name: 'joined', type: 'date', min: '2024-01-01', max: '2024-01-23' },
      ],
    });
  });

  it('reads a snapshot stored before parts (its rows in one column) as before', async () => {
    const table = await run(await upload('customers.csv', CUSTOMERS));
    // As migration 6 found it: no parts, every row in rows_json.
    await store.run("UPDATE ingest_snapshots SET part_count = NULL, rows_json = ? WHERE snapshot_id = ?", [JSON.stringify([[1, 'Ada', true], [2, 'Brian', false], [3, 'Chen', null]]), table.snapshot_id]);
    await store.run('DELETE FROM ingest_snapshot_parts');
    const sampled = await run(await queue('SAMPLE_REFRESH'));
    expect((sampled.result_json.tables as Array<{ sample: unknown[][] }>)[0]!.sample).toEqual([[1, 'Ada', true], [2, 'Brian', false], [3, 'Chen', null]]);
    const described = await run(await queue('DESCRIBE_PASS'));
    expect((described.result_json.tables as Array<{ columns: unknown[] }>)[0]!.columns[2]).toMatchObject({ name: 'vip', count: 3, nulls: 1, distinct: 2 });
  });

  it('keeps no part of a file that turns out bad after its first parts, and fails it with the line', async () => {
    const rows = Array.from({ length: 30 }, (_, k) => `${k},x`);
    rows[24] = '24,"never closed';
    const small = await smallPartsWorker(3);
    const bad = await runWith(small, await upload('late.csv', ['a,b', ...rows].join('\n')));
    expect(bad.result_json.error).toBe('late.csv: line 26, column 4: a quoted field is never closed (missing ")');
    expect(await partCount()).toBe(0);
    // The same when the file changes on disk between the two reads: its hash is checked at the end of each.
    const fileOf = async (job: IngestJobRead) => (await store.get<{ file_id: string }>('SELECT file_id FROM ingest_jobs WHERE ingest_job_id = ?', [job.ingest_job_id]))!.file_id;
    const job = await upload('moving.csv', CUSTOMERS);
    const path = uploads.pathOf(await fileOf(job));
    const moving = new IngestWorker({
      store: () => store,
      uploads: Object.assign(Object.create(uploads) as UploadFiles, {
        pieces: (file: Parameters<UploadFiles['pieces']>[0]) => {
          reads += 1;
          if (reads === 2) writeFileSync(path, CUSTOMERS.replace('Ada', 'Bob'));
          return uploads.pieces(file);
        },
      }),
      partLimits: { rows: 1, chars: 1024 },
      logger: QUIET_LOGGER,
      pollIntervalMs: 50,
      stopGraceMs: 100,
      poll: false,
    });
    let reads = 0;
    await moving.start();
    expect((await runWith(moving, job)).result_json.error).toBe('source file moving.csv changed on disk since it was uploaded (its SHA-256 differs from the upload); upload it again');
    expect(reads).toBe(2);
    expect(await partCount()).toBe(0);
  });

  it('removes the parts a stopped run of a job left when the job runs again, and after it finished, with the retention pass', async () => {
    const job = await upload('customers.csv', CUSTOMERS);
    const leftover = (snapshot: string, jobId: string) =>
      store.run("INSERT INTO ingest_snapshot_parts (snapshot_id, part_no, ingest_job_id, row_count, rows_json) VALUES (?, 0, ?, 1, '[[1]]')", [snapshot, jobId]);
    // A run that stopped before finishing (a crash): parts, no snapshot row.
    await leftover('00000000-0000-4000-8000-000000000001', job.ingest_job_id);
    const other = await upload('other.csv', CUSTOMERS);
    await leftover('00000000-0000-4000-8000-000000000002', other.ingest_job_id);
    const done = await run(job);
    expect(done.status).toBe('SUCCEEDED');
    const kept = await store.all<{ snapshot_id: string }>('SELECT DISTINCT snapshot_id FROM ingest_snapshot_parts ORDER BY snapshot_id');
    // This job's leftover went; the other job's (not run yet) and the new snapshot's parts stay.
    expect(kept.map((r) => r.snapshot_id).sort()).toEqual(['00000000-0000-4000-8000-000000000002', done.snapshot_id].sort());
    // The other job finishes by another worker without those parts (say, cancelled): the retention pass removes them.
    await jobs.cancel(scope, other.ingest_job_id, 'tester');
    await leftover('00000000-0000-4000-8000-000000000003', done.ingest_job_id);
    const retention = new RetentionWorker({ store: () => store, uploads, logger: QUIET_LOGGER, retentionDays: 7, intervalMs: 60_000, poll: false });
    expect((await retention.runOnce()).partsRemoved).toBe(2);
    expect((await store.all<{ snapshot_id: string }>('SELECT DISTINCT snapshot_id FROM ingest_snapshot_parts')).map((r) => r.snapshot_id)).toEqual([done.snapshot_id]);
    expect((await run(await queue('SAMPLE_REFRESH'))).status).toBe('SUCCEEDED');
  });
});
