import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from '../daemon/src/ingest/testing/https-receiver.js';
import { serviceSignature } from '../daemon/src/ingest/signing.js';
import { sendStreamedUpload } from '../daemon/src/ingest/testing/multipart-upload.js';
import { SqliteStore } from '../daemon/src/store/sqlite-store.js';
import { startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { tenantCall } from './ingest-api.js';

const DEFAULT_SECRET = 'default-secret-0123456789abcdef0123456789';
let tls: TestTls;
let receiver: TestReceiver;
let daemon: DaemonHandle;
beforeAll(async () => {
  tls = makeTestTls();
  receiver = await startReceiver(tls);
  daemon = await startDaemon({
    env: {
      SERVICE_CALLBACK_CA_FILE: tls.caFile,
      SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1',
      SERVICE_CALLBACK_POLL_INTERVAL_S: '0.1',
      SERVICE_INGEST_POLL_INTERVAL_S: '0.1',
      SERVICE_DEFAULT_CALLBACK_URL: `${receiver.url}/default`,
      SERVICE_DEFAULT_CALLBACK_SECRET: DEFAULT_SECRET,
      SERVICE_DEFAULT_CALLBACK_HEADERS: '{"X-Default":"1"}',
    },
  });
});
afterAll(async () => {
  await daemon?.dispose();
  await receiver?.close();
  tls?.dispose();
});

const api = (path: string, init?: RequestInit) => tenantCall(daemon, path, init);

async function finished(jobId: string) {
  let job: any;
  await waitUntil(async () => {
    job = (await api(`/api/v1/ingest-jobs/${jobId}`)).body;
    return ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(job.status);
  }, 20_000, () => `job ${jobId} to finish`);
  return job;
}

const callbackFor = async (jobId: string) => {
  await waitUntil(() => receiver.received.some((r) => r.headers['x-service-job-id'] === jobId), 20_000, () => `callback of ${jobId}`);
  return receiver.received.find((r) => r.headers['x-service-job-id'] === jobId)!;
};

describe('ingest jobs through the running daemon', () => {
  it('uploads a CSV, parses it into a table, and calls back the upload headers target with the job record', async () => {
    const ds = await api('/api/v1/datasets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'shop' }) });
    const form = new FormData();
    form.append('file', new Blob(['id,name\n1,Ada\n2,Brian\n'], { type: 'text/csv' }), 'customers.csv');
    form.append('callback_url', `${receiver.url}/upload`);
    const created = await api(`/api/v1/datasets/${ds.body.dataset_id}/files:async`, {
      method: 'POST',
      body: form,
      headers: { 'X-Service-Callback-Url': `${receiver.url}/ignored`, 'X-Service-Callback-Secret': 'hdr-secret', 'X-Actor-Id': 'ada' },
    });
    expect(created.status).toBe(202);
    const job = await finished(created.body.ingest_job_id);
    expect(job).toMatchObject({ status: 'SUCCEEDED', job_kind: 'PARSE_AND_INGEST', request_json: { actor: 'ada', dataset_name: 'shop' }, result_json: { row_count: 2, table_name: 'customers' } });
    const got = await callbackFor(job.ingest_job_id);
    expect(got.path).toBe('/upload');
    expect(got.headers['x-service-event']).toBe('ingest.succeeded');
    expect(got.headers['x-service-signature']).toBe(serviceSignature('hdr-secret', got.body));
    expect(JSON.parse(got.body.toString())).toEqual(job);

    // Recovery path of the spec: a REPARSE without a callback goes to the default bundle.
    const reparse = await api('/api/v1/ingest-jobs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ dataset_id: ds.body.dataset_id, job_kind: 'REPARSE', table_id: job.table_id }),
    });
    const reparsed = await finished(reparse.body.ingest_job_id);
    expect(reparsed.status).toBe('SUCCEEDED');
    const again = await callbackFor(reparsed.ingest_job_id);
    expect(again.path).toBe('/default');
    expect(again.headers['x-default']).toBe('1');
    expect(again.headers['x-service-signature']).toBe(serviceSignature(DEFAULT_SECRET, again.body));
  });

  it('fails a bad file with result_json.error and sends ingest.failed', async () => {
    const ds = await api('/api/v1/datasets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'bad' }) });
    const form = new FormData();
    form.append('file', new Blob(['a,b\n1\n']), 'bad.csv');
    const created = await api(`/api/v1/datasets/${ds.body.dataset_id}/files:async`, { method: 'POST', body: form });
    const job = await finished(created.body.ingest_job_id);
    expect(job).toMatchObject({ status: 'FAILED', result_json: { error: 'bad.csv: line 2 has 1 fields; the header has 2' } });
    const got = await callbackFor(job.ingest_job_id);
    expect(got.headers['x-service-event']).toBe('ingest.failed');
  });
});

describe('uploads in the data dir across processes', () => {
  const started: DaemonHandle[] = [];
  afterAll(async () => {
    for (const d of started.reverse()) await d.dispose();
  });
  const uploadsOf = (d: DaemonHandle): string[] => {
    try {
      return readdirSync(join(d.dataDir, 'uploads'));
    } catch {
      return [];
    }
  };

  it('a gateway process takes the upload and an ingest-worker process sharing its data dir parses it', async () => {
    const front = await startDaemon({ args: ['--mode', 'gateway'] });
    started.push(front);
    const worker = await startDaemon({ args: ['--mode', 'ingest-worker'], dataDir: front.dataDir, env: { SERVICE_INGEST_POLL_INTERVAL_S: '0.1' } });
    started.push(worker);
    const call = (path: string, init?: RequestInit) => tenantCall(front, path, init);
    const ds = await call('/api/v1/datasets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'split' }) });
    const form = new FormData();
    form.append('file', new Blob(['id,name\n1,Ada\n2,Brian\n3,Chen\n'], { type: 'text/csv' }), 'people.csv');
    const created = await call(`/api/v1/datasets/${ds.body.dataset_id}/files:async`, { method: 'POST', body: form });
    expect(created.status).toBe(202);
    let job: any;
    await waitUntil(async () => {
      job = (await call(`/api/v1/ingest-jobs/${created.body.ingest_job_id}`)).body;
      return job.status !== 'QUEUED' && job.status !== 'RUNNING';
    }, 20_000, () => 'the ingest-worker process to finish the upload job');
    expect(job).toMatchObject({ status: 'SUCCEEDED', result_json: { table_name: 'people', row_count: 3 } });
  });

  it('an upload cut by a crash leaves no file: the next start sweeps it, and no job exists', async () => {
    const d = await startDaemon({ args: ['--mode', 'gateway'] });
    started.push(d);
    const ds = await tenantCall(d, '/api/v1/datasets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'crash' }) });
    const answer = await sendStreamedUpload({
      url: `${d.servicesUrl}/api/v1/datasets/${ds.body.dataset_id}/files:async`,
      headers: { 'X-Tenant-Id': 'acme', 'X-Workspace-Id': 'main' },
      fileBytes: 8 * 1024 * 1024,
      abortAfterBytes: 2 * 1024 * 1024,
      // The daemon dies while it writes the upload.
      beforeAbort: async () => {
        await waitUntil(() => uploadsOf(d).some((n) => n.endsWith('.part')), 10_000, () => 'the upload to reach the disk');
        await d.stop('SIGKILL');
      },
    });
    expect(answer).toMatchObject({ aborted: true });
    expect(uploadsOf(d).filter((n) => n.endsWith('.part'))).toHaveLength(1);
    await d.start();
    expect(uploadsOf(d)).toEqual([]);
    await expect.poll(() => d.logs()).toMatch(/upload_files_swept .*temporary_removed=1/);
    const store = new SqliteStore({ file: join(d.dataDir, 'portico.db') });
    try {
      expect(await store.get('SELECT COUNT(*) AS n FROM ingest_jobs')).toEqual({ n: 0 });
    } finally {
      await store.close();
    }
  });
});
