import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobStore } from '../daemon/src/ingest/job-store.js';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from '../daemon/src/ingest/testing/https-receiver.js';
import { seedDeliveries } from '../daemon/src/ingest/testing/ingest-fixture.js';
import { postgresReachable } from '../daemon/src/store/testing/databases.js';
import type { Store } from '../daemon/src/store/types.js';
import { daemonDatabase, startDaemon, waitUntil, type DaemonDatabase, type DaemonHandle } from './harness.js';

const withPostgres = await postgresReachable();
const KINDS = withPostgres ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
const scope = { tenantId: 'acme', workspaceId: 'main' };
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

/** One database shared by daemons started one after another; the test opens it too. */
class Cluster {
  daemons: DaemonHandle[] = [];
  dataDir: string | undefined;
  database: DaemonDatabase | null = null;
  store: Store | null = null;
  constructor(readonly kind: 'sqlite' | 'postgres') {}

  async env(extra: Record<string, string>): Promise<Record<string, string>> {
    this.database ??= await daemonDatabase(this.kind);
    return {
      SERVICE_CALLBACK_CA_FILE: tls.caFile,
      SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1',
      SERVICE_CALLBACK_POLL_INTERVAL_S: '0.05',
      SERVICE_INGEST_POLL_INTERVAL_S: '0.05',
      SERVICE_INGEST_LEASE_S: '1',
      ...extra,
      ...this.database.env,
    };
  }

  async start(mode: string, extra: Record<string, string> = {}, wait = true): Promise<DaemonHandle> {
    const d = await startDaemon({ args: ['--mode', mode], env: await this.env(extra), ...(this.dataDir ? { dataDir: this.dataDir } : {}), noWait: !wait });
    this.dataDir ??= d.dataDir;
    this.daemons.push(d);
    return d;
  }

  async open(): Promise<Store> {
    this.store ??= await this.database!.open(this.dataDir!);
    return this.store;
  }

  async dispose(): Promise<void> {
    await this.store?.close();
    for (const d of [...this.daemons].reverse()) await d.dispose();
    await this.database?.drop();
  }
}

async function queueJobs(store: Store, n: number, url: string): Promise<string[]> {
  const jobs = new JobStore(store);
  const ds = await jobs.createDataset(scope, 'faults');
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const job = await jobs.createJob(scope, { datasetId: ds.dataset_id, jobKind: 'SAMPLE_REFRESH', tableId: null, fileId: null, request: {}, callback: { url, secret: 's', headers: {} } });
    ids.push(job.ingest_job_id);
  }
  return ids;
}

/** The outbox invariant: a job is terminal exactly when it has its one row. */
async function checkInvariant(store: Store): Promise<{ terminal: number; rows: number }> {
  const jobs = await store.all<{ ingest_job_id: string; status: string; n: number }>(
    `SELECT j.ingest_job_id, j.status, (SELECT COUNT(*) FROM ingest_callback_outbox o WHERE o.ingest_job_id = j.ingest_job_id) AS n FROM ingest_jobs j`,
  );
  let terminal = 0;
  for (const j of jobs) {
    const isTerminal = ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(j.status);
    expect({ job: j.ingest_job_id, status: j.status, rows: Number(j.n) }).toEqual({ job: j.ingest_job_id, status: j.status, rows: isTerminal ? 1 : 0 });
    if (isTerminal) terminal += 1;
  }
  const orphans = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM ingest_callback_outbox o WHERE NOT EXISTS (SELECT 1 FROM ingest_jobs j WHERE j.ingest_job_id = o.ingest_job_id)');
  expect(Number(orphans!.n)).toBe(0);
  return { terminal, rows: terminal };
}

describe.each(KINDS)('crashes around the status change on %s', (kind) => {
  it.each(['finish-job:after-status', 'finish-job:after-outbox'])('kill -9 at %s leaves neither write; the job then finishes with exactly one row', async (point) => {
    const cluster = new Cluster(kind);
    try {
      const first = await cluster.start('ingest-worker', { PORTICO_FAULT_POINT: point });
      const store = await cluster.open();
      const jobId = (await queueJobs(store, 1, `${receiver.url}/fault`))[0]!;
      const code = await first.exited();
      expect(code).toBeNull(); // killed by SIGKILL, not exited
      expect((await store.get<{ status: string }>('SELECT status FROM ingest_jobs WHERE ingest_job_id = ?', [jobId]))!.status).toBe('RUNNING');
      await checkInvariant(store);
      await cluster.start('all');
      await waitUntil(async () => (await store.get<{ status: string }>("SELECT status FROM ingest_callback_outbox WHERE ingest_job_id = ?", [jobId]))?.status === 'DELIVERED', 20_000);
      const job = (await store.get<{ status: string; attempts: number }>('SELECT status, attempts FROM ingest_jobs WHERE ingest_job_id = ?', [jobId]))!;
      expect(job).toEqual({ status: 'FAILED', attempts: 2 });
      await checkInvariant(store);
    } finally {
      await cluster.dispose();
    }
  });

  it('random kill -9 of ingest workers never separates a terminal status from its row', async () => {
    const cluster = new Cluster(kind);
    try {
      await cluster.start('ingest-worker');
      const store = await cluster.open();
      const ids = await queueJobs(store, 150, `${receiver.url}/storm`);
      for (let round = 0; round < 4; round++) {
        const victim = cluster.daemons.at(-1)!;
        await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 200)));
        await victim.stop('SIGKILL');
        await checkInvariant(store);
        await cluster.start('ingest-worker');
      }
      await waitUntil(async () => (await checkInvariant(store)).terminal === ids.length, 60_000, () => 'every job terminal');
    } finally {
      await cluster.dispose();
    }
  });
});

describe('a callback worker killed mid-delivery (sqlite)', () => {
  it('leaves the row to be delivered again after its lease; it ends DELIVERED', async () => {
    const cluster = new Cluster('sqlite');
    try {
      const env = { SERVICE_CALLBACK_REQUEST_TIMEOUT_S: '3' };
      const first = await cluster.start('callback-worker', env);
      const store = await cluster.open();
      let held = 0;
      receiver.reply = (req) => (req.path === '/mid' && held++ === 0 ? { status: 200, delayMs: 60_000 } : { status: 200 });
      const id = (await seedDeliveries(store, 1, `${receiver.url}/mid`))[0]!;
      await waitUntil(() => receiver.received.some((r) => r.headers['webhook-id'] === id), 10_000);
      await first.stop('SIGKILL');
      const leased = (await store.get<{ status: string; attempts: number; lease_token: string | null }>('SELECT status, attempts, lease_token FROM ingest_callback_outbox WHERE id = ?', [id]))!;
      expect(leased).toMatchObject({ status: 'PENDING', attempts: 0 });
      expect(leased.lease_token).not.toBeNull();
      await cluster.start('callback-worker', env);
      await waitUntil(async () => (await store.get<{ status: string }>('SELECT status FROM ingest_callback_outbox WHERE id = ?', [id]))?.status === 'DELIVERED', 30_000);
      expect(receiver.received.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(2);
      expect(await store.get('SELECT attempts FROM ingest_callback_outbox WHERE id = ?', [id])).toEqual({ attempts: 1 });
    } finally {
      receiver.reply = () => ({ status: 200, body: 'ok' });
      await cluster.dispose();
    }
  });
});

describe('a receiver slower than the request timeout (sqlite, real worker process)', () => {
  it('records a timeout, keeps the row PENDING and schedules the retry 30 s after the failure', async () => {
    const cluster = new Cluster('sqlite');
    try {
      await cluster.start('callback-worker', { SERVICE_CALLBACK_REQUEST_TIMEOUT_S: '0.5' });
      const store = await cluster.open();
      receiver.reply = (req) => (req.path === '/sluggish' ? { status: 200, delayMs: 3000 } : { status: 200 });
      const id = (await seedDeliveries(store, 1, `${receiver.url}/sluggish`))[0]!;
      await waitUntil(async () => Number((await store.get<{ attempts: number }>('SELECT attempts FROM ingest_callback_outbox WHERE id = ?', [id]))!.attempts) === 1, 15_000);
      const row = (await store.get<{ status: string; last_error: string; last_status_code: number | null; last_attempt_at: number; next_attempt_at: number }>(
        'SELECT status, last_error, last_status_code, last_attempt_at, next_attempt_at FROM ingest_callback_outbox WHERE id = ?',
        [id],
      ))!;
      expect(row).toMatchObject({ status: 'PENDING', last_status_code: null, last_error: 'timeout: no answer within 500 ms' });
      const attempt = (await store.get<{ started_at: number; duration_ms: number }>('SELECT started_at, duration_ms FROM ingest_callback_attempts WHERE delivery_id = ?', [id]))!;
      // Measured from the failure: started + duration (+ the write), plus the table's 30 s.
      expect(row.next_attempt_at - (Number(attempt.started_at) + Number(attempt.duration_ms))).toBeGreaterThanOrEqual(30_000);
      expect(row.next_attempt_at - Number(attempt.started_at)).toBeLessThan(40_000);
    } finally {
      receiver.reply = () => ({ status: 200, body: 'ok' });
      await cluster.dispose();
    }
  });
});
