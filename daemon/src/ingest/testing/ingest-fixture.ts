import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '../../core/logger.js';
import { ServicesListener } from '../../core/services-listener.js';
import { migrate } from '../../store/migrate.js';
import type { TestDatabase } from '../../store/testing/databases.js';
import type { Store } from '../../store/types.js';
import { CallbackWorker, type CallbackWorkerOptions } from '../callback-worker.js';
import { ingestApi } from '../ingest-api.js';
import { readIngestSettings, type IngestSettings } from '../ingest-settings.js';
import { INGEST_MIGRATIONS } from '../migrations.js';
import { finishJob, JobStore } from '../job-store.js';
import { UploadFiles } from '../upload-files.js';

export const QUIET_LOGGER = new Logger({ level: 'error', sink: { write: () => {} } });

/** A callback worker for tests: attempts only on `runOnce` (unless `poll`), trusts the test CA, may call 127.0.0.1. */
export function testWorker(store: Store, caFile: string, opts: Partial<CallbackWorkerOptions> = {}): CallbackWorker {
  return new CallbackWorker({
    store: () => store,
    logger: QUIET_LOGGER,
    pollIntervalMs: 50,
    batchSize: 25,
    requestTimeoutMs: 2000,
    allowHosts: new Set(['127.0.0.1']),
    caFile,
    stopGraceMs: 100,
    poll: false,
    ...opts,
  });
}

export async function migratedStore(database: TestDatabase): Promise<Store> {
  const store = await database.open();
  await migrate(store, [{ area: 'ingest', migrations: INGEST_MIGRATIONS }]);
  return store;
}

export interface ApiFixture {
  url: string;
  store: Store;
  jobs: JobStore;
  settings: IngestSettings;
  /** Where the API writes uploads (a temporary folder, removed on close). */
  uploads: UploadFiles;
  /** fetch against the API with tenant headers (override or drop them per call). */
  call(path: string, init?: RequestInit & { tenant?: string | null; workspace?: string | null }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/** The ingest API on a real services listener (port 0) over a migrated test database. */
export async function startApi(database: TestDatabase, env: NodeJS.ProcessEnv = {}): Promise<ApiFixture> {
  const store = await migratedStore(database);
  const settings = readIngestSettings({ SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1,localhost', ...env });
  const jobs = new JobStore(store);
  const uploads = new UploadFiles(join(mkdtempSync(join(tmpdir(), 'portico-uploads-')), 'uploads'));
  const listener = new ServicesListener({ host: '127.0.0.1', port: 0 }, QUIET_LOGGER);
  listener.mount('ingest', (p) => p.startsWith('/api/v1/'), ingestApi({ store, jobs, settings, uploads }));
  await listener.start();
  const url = listener.url!;
  return {
    url,
    store,
    jobs,
    settings,
    uploads,
    async call(path, init = {}) {
      const { tenant = 't1', workspace = 'w1', ...rest } = init;
      const headers = new Headers(rest.headers);
      if (tenant !== null) headers.set('X-Tenant-Id', tenant);
      if (workspace !== null) headers.set('X-Workspace-Id', workspace);
      const res = await fetch(`${url}${path}`, { ...rest, headers });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep text */
      }
      return { status: res.status, body, headers: res.headers };
    },
    async close() {
      await listener.stop();
      await store.close();
      rmSync(join(uploads.dir, '..'), { recursive: true, force: true });
    },
  };
}

export function jsonInit(body: unknown, init: RequestInit & { tenant?: string | null; workspace?: string | null } = {}) {
  return { ...init, method: 'POST', headers: { 'Content-Type': 'application/json', ...(init.headers as Record<string, string> | undefined) }, body: JSON.stringify(body) };
}

/** A dataset + job moved to `status` through finishJob, so its outbox row exists (when it has a callback). */
export async function seedFinishedJob(
  store: Store,
  callback: { url: string; secret?: string | null; headers?: Record<string, string> } | null,
  status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED' = 'SUCCEEDED',
  now = Date.now(),
): Promise<{ jobId: string; deliveryId: string | null }> {
  const jobs = new JobStore(store, () => now);
  const scope = { tenantId: 't1', workspaceId: 'w1' };
  const dataset = await jobs.createDataset(scope, 'seed');
  const job = await jobs.createJob(scope, {
    datasetId: dataset.dataset_id,
    jobKind: 'DESCRIBE_PASS',
    tableId: null,
    fileId: null,
    request: { actor: 'test' },
    callback: callback ? { url: callback.url, secret: callback.secret ?? null, headers: callback.headers ?? {} } : null,
  });
  const finished = await store.transaction((tx) => finishJob(tx, job.ingest_job_id, ['QUEUED'], status, { rows: 3 }, now));
  return { jobId: job.ingest_job_id, deliveryId: finished!.deliveryId };
}

/**
 * `count` SUCCEEDED jobs with PENDING outbox rows to `url`, in one transaction (fast seeding for
 * load tests), finished at `now` and due at `dueAt` (a later time keeps a running worker off them,
 * e.g. until a test has made them DEAD).
 */
export async function seedDeliveries(store: Store, count: number, url: string, secret: string | null = null, now = Date.now(), dueAt = now): Promise<string[]> {
  const datasetId = (await new JobStore(store).createDataset({ tenantId: 't1', workspaceId: 'w1' }, 'bulk')).dataset_id;
  return store.transaction(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const jobId = randomUUID();
      await tx.run(
        `INSERT INTO ingest_jobs (ingest_job_id, tenant_id, workspace_id, dataset_id, job_kind, status, attempts, request_json, result_json,
           callback_url, callback_secret, callback_headers, created_at, updated_at)
         VALUES (?, 't1', 'w1', ?, 'DESCRIBE_PASS', 'RUNNING', 1, '{}', '{}', ?, ?, '{}', ?, ?)`,
        [jobId, datasetId, url, secret, now, now],
      );
      const done = await finishJob(tx, jobId, ['RUNNING'], 'SUCCEEDED', { n: i }, now);
      if (dueAt !== now) await tx.run('UPDATE ingest_callback_outbox SET next_attempt_at = ? WHERE id = ?', [dueAt, done!.deliveryId!]);
      ids.push(done!.deliveryId!);
    }
    return ids;
  });
}
