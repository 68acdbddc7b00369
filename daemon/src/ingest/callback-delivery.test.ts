import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDatabases } from '../store/testing/databases.js';
import type { CallbackWorkerOptions } from './callback-worker.js';
import type { AttemptRow, OutboxRow } from './records.js';
import { standardWebhookSignature } from './signing.js';
import { callbackRigPerTest } from './testing/callback-rig.js';
import { seedFinishedJob, testWorker } from './testing/ingest-fixture.js';

const factories = await testDatabases();
const SECRET = 'whsec-test-0123456789abcdef0123456789abcdef';

describe.each(factories.map((f) => [f.kind, f] as const))('callback delivery on %s', (_kind, factory) => {
  const rig = callbackRigPerTest(factory);
  const worker = (opts: Partial<CallbackWorkerOptions> = {}) => testWorker(rig.store, rig.tls.caFile, opts);

  it('POSTs the job record with the spec headers, custom first, and a signature openssl agrees with', async () => {
    const { jobId, deliveryId } = await seedFinishedJob(rig.store, { url: `${rig.receiver.url}/hooks/ingest?x=1`, secret: SECRET, headers: { 'X-Receiver-Key': 'k-1' } });
    const w = worker();
    await w.start();
    try {
      expect(await w.runOnce()).toBe(1);
    } finally {
      await w.stop();
    }
    expect(rig.receiver.received).toHaveLength(1);
    const got = rig.receiver.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hooks/ingest?x=1');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('service-callback/26');
    expect(got.headers['x-service-event']).toBe('ingest.succeeded');
    expect(got.headers['x-service-job-id']).toBe(jobId);
    expect(got.headers['x-receiver-key']).toBe('k-1');
    expect(got.headers['webhook-id']).toBe(deliveryId);
    const body = JSON.parse(got.body.toString('utf8'));
    expect(body).toMatchObject({ ingest_job_id: jobId, status: 'SUCCEEDED', job_kind: 'DESCRIBE_PASS', result_json: { rows: 3 }, tenant_id: 't1', workspace_id: 'w1' });
    expect(Object.keys(body).sort()).toEqual(
      ['attempts', 'dataset_id', 'file_id', 'ingest_job_id', 'job_kind', 'request_json', 'result_json', 'snapshot_id', 'status', 'table_id', 'tenant_id', 'workspace_id'].sort(),
    );
    expect(got.body.toString()).not.toContain(SECRET);

    // An independent implementation of HMAC-SHA256: openssl over the raw body bytes.
    const bodyFile = join(rig.tls.dir, 'body.json');
    writeFileSync(bodyFile, got.body);
    const hex = execFileSync('openssl', ['dgst', '-sha256', '-hmac', SECRET, '-r', bodyFile], { encoding: 'utf8' }).split(' ')[0];
    expect(got.headers['x-service-signature']).toBe(`sha256=${hex}`);
    const ts = Number(got.headers['webhook-timestamp']);
    expect(got.headers['webhook-signature']).toBe(standardWebhookSignature(SECRET, deliveryId!, ts, got.body));

    const row = (await rig.store.get<OutboxRow>('SELECT * FROM ingest_callback_outbox WHERE id = ?', [deliveryId]))!;
    expect(row).toMatchObject({ status: 'DELIVERED', attempts: 1, last_status_code: 200, last_error: null, lease_token: null });
    expect(row.finished_at).not.toBeNull();
    const attempts = await rig.store.all<AttemptRow>('SELECT * FROM ingest_callback_attempts WHERE delivery_id = ?', [deliveryId]);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null, response_body: 'ok' });
  });

  it('sends no signature headers without a secret, and ingest.failed with status CANCELLED for a cancelled job', async () => {
    await seedFinishedJob(rig.store, { url: rig.receiver.url }, 'CANCELLED');
    const w = worker();
    await w.start();
    await w.runOnce();
    await w.stop();
    const got = rig.receiver.received[0]!;
    expect(got.headers['x-service-event']).toBe('ingest.failed');
    expect(JSON.parse(got.body.toString()).status).toBe('CANCELLED');
    expect(got.headers['x-service-signature']).toBeUndefined();
    expect(got.headers['webhook-signature']).toBeUndefined();
    expect(got.headers['webhook-id']).toBeDefined();
  });

  it('records a non-2xx answer, a timeout and a redirect as failed attempts with their status and error', async () => {
    const a = await seedFinishedJob(rig.store, { url: `${rig.receiver.url}/500` });
    const b = await seedFinishedJob(rig.store, { url: `${rig.receiver.url}/slow` });
    const c = await seedFinishedJob(rig.store, { url: `${rig.receiver.url}/redirect` });
    rig.receiver.reply = (req) =>
      req.path === '/500' ? { status: 500, body: 'x'.repeat(5000) } : req.path === '/slow' ? { status: 200, delayMs: 1500 } : { status: 302, body: '' };
    const w = worker({ requestTimeoutMs: 500 });
    await w.start();
    await w.runOnce();
    await w.stop();
    const rows = new Map((await rig.store.all<OutboxRow>('SELECT * FROM ingest_callback_outbox')).map((r) => [r.ingest_job_id, r]));
    expect(rows.get(a.jobId)).toMatchObject({ status: 'PENDING', attempts: 1, last_status_code: 500, last_error: 'receiver answered HTTP 500' });
    expect(rows.get(b.jobId)).toMatchObject({ status: 'PENDING', attempts: 1, last_status_code: null });
    expect(rows.get(b.jobId)!.last_error).toMatch(/^timeout/);
    expect(rows.get(c.jobId)).toMatchObject({ status: 'PENDING', attempts: 1, last_status_code: 302 });
    const snippet = await rig.store.get<{ response_body: string }>('SELECT response_body FROM ingest_callback_attempts WHERE delivery_id = ?', [a.deliveryId]);
    expect(snippet!.response_body).toHaveLength(2048);
  });

  it('refuses a private target that is not allowed, without connecting', async () => {
    await seedFinishedJob(rig.store, { url: rig.receiver.url });
    const w = worker({ allowHosts: new Set() });
    await w.start();
    await w.runOnce();
    await w.stop();
    expect(rig.receiver.received).toHaveLength(0);
    const row = (await rig.store.get<OutboxRow>('SELECT * FROM ingest_callback_outbox'))!;
    expect(row.last_error).toMatch(/^refused: 127\.0\.0\.1 is a loopback/);
  });
});
