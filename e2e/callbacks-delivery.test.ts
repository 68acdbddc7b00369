import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from '../daemon/src/ingest/testing/https-receiver.js';
import { startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { tenantCall } from './ingest-api.js';

const SECRET = 'e2e-secret-0123456789abcdef0123456789abcdef';
let tls: TestTls;
let receiver: TestReceiver;
let daemon: DaemonHandle;
beforeAll(async () => {
  tls = makeTestTls();
  receiver = await startReceiver(tls);
  daemon = await startDaemon({
    env: { SERVICE_CALLBACK_CA_FILE: tls.caFile, SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1', SERVICE_CALLBACK_POLL_INTERVAL_S: '0.1', PORTICO_LOG_FORMAT: 'json' },
  });
});
afterAll(async () => {
  await daemon?.dispose();
  await receiver?.close();
  tls?.dispose();
});

const api = (path: string, init?: RequestInit) => tenantCall(daemon, path, init);

describe('callbacks through the running daemon (mode all)', () => {
  it('signs and delivers the callback of a job cancelled through the API, and lists it', async () => {
    const ds = await api('/api/v1/datasets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'e2e' }) });
    expect(ds.status).toBe(201);
    const job = await api('/api/v1/ingest-jobs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ dataset_id: ds.body.dataset_id, job_kind: 'RELATION_PASS', callback: { url: `${receiver.url}/cb`, secret: SECRET, headers: { 'X-Trace': 't-1' } } }),
    });
    expect(job.status).toBe(202);
    const jobId = job.body.ingest_job_id as string;
    // Cancel before the ingest worker can pick it up is racy once workers run jobs; a CANCELLED or finished job both end with one callback.
    await api(`/api/v1/ingest-jobs/${jobId}:cancel`, { method: 'POST' });
    await waitUntil(() => receiver.received.some((r) => r.headers['x-service-job-id'] === jobId), 20_000, () => `callback for ${jobId}`);
    const got = receiver.received.find((r) => r.headers['x-service-job-id'] === jobId)!;
    const body = JSON.parse(got.body.toString());
    expect(body.ingest_job_id).toBe(jobId);
    expect(got.headers['x-service-event']).toBe(body.status === 'SUCCEEDED' ? 'ingest.succeeded' : 'ingest.failed');
    expect(got.headers['x-trace']).toBe('t-1');
    const file = join(tls.dir, 'e2e-body.json');
    writeFileSync(file, got.body);
    const hex = execFileSync('openssl', ['dgst', '-sha256', '-hmac', SECRET, '-r', file], { encoding: 'utf8' }).split(' ')[0];
    expect(got.headers['x-service-signature']).toBe(`sha256=${hex}`);

    await waitUntil(async () => (await api(`/api/v1/ingest-jobs/${jobId}/callbacks`)).body.items?.[0]?.status === 'DELIVERED', 10_000);
    const list = await api(`/api/v1/ingest-jobs/${jobId}/callbacks?status=DELIVERED`);
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(list.body.items[0]).toMatchObject({ ingest_job_id: jobId, callback_url: `${receiver.url}/cb`, attempts: 1, last_status_code: 200, last_error: null });
    expect(Object.keys(list.body.items[0]).sort()).toEqual(
      ['attempts', 'callback_url', 'created_at', 'event_type', 'finished_at', 'id', 'ingest_job_id', 'last_attempt_at', 'last_error', 'last_status_code', 'next_attempt_at', 'status'].sort(),
    );
    // The daemon's lines go out in 20 ms batches (docs/operating.md): the line may follow the stored status.
    await expect.poll(() => daemon.logs()).toContain('"message":"callback_delivered"');
    expect(daemon.logs()).toContain('"message":"callback_worker_started"');
    expect(daemon.logs()).not.toContain(SECRET);
  });
});
