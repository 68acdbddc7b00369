import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { sendStreamedUpload } from '../daemon/src/ingest/testing/multipart-upload.js';
import { postgresReachable } from '../daemon/src/store/testing/databases.js';
import { daemonDatabase, startDaemon, waitUntil, type DaemonDatabase, type DaemonHandle } from './harness.js';
import { tenantCall } from './ingest-api.js';

/**
 * An ingest worker reads an uploaded CSV in pieces and stores its snapshot in parts, so a large
 * file does not take the worker's memory with it (docs/ingest-callbacks.md, "Uploads"): a 48 MiB
 * file of 1.6 million rows, parsed and then described, raises the worker's RSS by less than
 * 200 MB (40-53 MB with the daemon's 16 MiB semi-spaces, 129-133 with the 64 of before, most of
 * that the young generation: scripts/daemon-node-flags.mjs). Before the pieces, parsing alone
 * raised it by about 970 MB, and describing the table failed.
 */
const MB = 1024 * 1024;
const FILE_BYTES = 48 * MB;
const GROWTH_BOUND = 200 * MB;
const HEAD = 'id,day,amount,note\n';
/** 2,048 rows of 32 bytes each: 64 KiB, so the upload's chunks end on a row's end. */
const ROWS = Buffer.from(
  Array.from({ length: 2048 }, (_, k) => {
    const row = `${k},2024-${String((k % 12) + 1).padStart(2, '0')}-${String((k % 28) + 1).padStart(2, '0')},${(k * 0.25).toFixed(2)},`;
    return `${row}${`n${k}`.padEnd(31 - row.length, 'x')}\n`;
  }).join(''),
);

const withPostgres = await postgresReachable();
const started: DaemonHandle[] = [];
const databases: DaemonDatabase[] = [];
afterAll(async () => {
  for (const d of started.reverse()) await d.dispose();
  for (const database of databases) await database.drop();
});

/** VmRSS and VmHWM (the peak since the process started) of a process, in bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

describe.each(withPostgres ? ['sqlite', 'postgres'] as const : ['sqlite'] as const)('ingest worker memory on a large file, on %s', (kind) => {
  it(`parses and describes a ${FILE_BYTES / MB} MiB CSV raising the worker's RSS by less than ${GROWTH_BOUND / MB} MB`, async () => {
    expect(ROWS.length).toBe(64 * 1024);
    const database = await daemonDatabase(kind);
    databases.push(database);
    // The API in one process, the worker in another on the same data dir: the worker's memory is the job's alone.
    const api = await startDaemon({ args: ['--mode', 'gateway'], env: database.env });
    started.push(api);
    const worker = await startDaemon({ args: ['--mode', 'ingest-worker'], env: { ...database.env, SERVICE_INGEST_POLL_INTERVAL_S: '0.2' }, dataDir: api.dataDir });
    started.push(worker);
    const pid = worker.pid()!;
    const before = memoryOf(pid);
    let sampled = before.rss;
    const sampler = setInterval(() => (sampled = Math.max(sampled, memoryOf(pid).rss)), 25);
    const finished = async (jobId: string) => {
      let job: any;
      await waitUntil(
        async () => {
          job = (await tenantCall(api, `/api/v1/ingest-jobs/${jobId}`)).body;
          return job.status !== 'QUEUED' && job.status !== 'RUNNING';
        },
        150_000,
        () => `job ${jobId} still ${job?.status}:\n${worker.logs()}`,
      );
      return job;
    };
    try {
      const dataset = await tenantCall(api, '/api/v1/datasets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'large' }) });
      const upload = await sendStreamedUpload({
        url: `${api.servicesUrl}/api/v1/datasets/${dataset.body.dataset_id}/files:async`,
        headers: { 'X-Tenant-Id': 'acme', 'X-Workspace-Id': 'main' },
        fileHead: HEAD,
        pattern: ROWS,
        fileBytes: FILE_BYTES,
        filename: 'large.csv',
      });
      expect('status' in upload && upload.status).toBe(202);
      const parsed = await finished((upload as { body: { ingest_job_id: string } }).body.ingest_job_id);
      expect(parsed.status, JSON.stringify(parsed.result_json)).toBe('SUCCEEDED');
      expect(parsed.result_json).toMatchObject({
        row_count: FILE_BYTES / 32,
        columns: [
          { name: 'id', type: 'integer' },
          { name: 'day', type: 'date' },
          { name: 'amount', type: 'number' },
          { name: 'note', type: 'text' },
        ],
      });
      const describeJob = await tenantCall(api, '/api/v1/ingest-jobs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ dataset_id: dataset.body.dataset_id, job_kind: 'DESCRIBE_PASS' }),
      });
      expect(describeJob.status, JSON.stringify(describeJob.body)).toBe(202);
      const described = await finished(describeJob.body.ingest_job_id);
      expect(described.status, JSON.stringify(described.result_json)).toBe('SUCCEEDED');
      expect(described.result_json.tables[0].columns[0]).toMatchObject({ name: 'id', count: FILE_BYTES / 32, nulls: 0, distinct: 2048, min: 0, max: 2047 });
    } finally {
      clearInterval(sampler);
    }
    const after = memoryOf(pid);
    const peak = Math.max(sampled, after.peak);
    console.log(`${kind}: ingest worker RSS before ${(before.rss / MB).toFixed(0)} MB, peak while parsing and describing ${FILE_BYTES / MB} MiB ${(peak / MB).toFixed(0)} MB (VmHWM ${(after.peak / MB).toFixed(0)} MB): ${((peak - before.rss) / MB).toFixed(0)} MB more, bound ${GROWTH_BOUND / MB} MB`);
    expect(peak - before.rss).toBeLessThan(GROWTH_BOUND);
  }, 240_000);
});
