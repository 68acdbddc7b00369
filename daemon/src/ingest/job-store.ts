import { randomUUID } from 'node:crypto';
import type { Queryable, Store } from '../store/types.js';
import { ApiError } from './api-error.js';
import { faultPoint } from './fault-point.js';
import { insertOutboxRow } from './outbox.js';
import { datasetRead, jobRead, type DatasetRow, type JobRow } from './records.js';
import type { StagedUpload } from './upload-files.js';
import { eventFor, isTerminal, type CallbackConfig, type DatasetRead, type IngestJobRead, type JobKind, type JobStatus, type Scope, type TerminalStatus } from './types.js';

export interface NewJob {
  datasetId: string;
  jobKind: JobKind;
  tableId: string | null;
  fileId: string | null;
  request: Record<string, unknown>;
  callback: CallbackConfig | null;
}

/** The client's Idempotency-Key and what its request said (a digest), to find or refuse a repeat. */
export interface IdempotencyClaim {
  key: string;
  fingerprint: string;
}

/** A created job, or the one an earlier request with the same Idempotency-Key created. */
export interface CreatedJob {
  job: IngestJobRead;
  replayed: boolean;
}

/**
 * A job's source file: an upload received into the data dir (what the API stores), or bytes kept
 * in the database (how files were stored before migration 5; still read, and written for callers
 * that hold small content already).
 */
export type NewFile = { filename: string; contentType: string | null } & ({ upload: StagedUpload } | { content: Uint8Array });

export interface JobFilter {
  status?: JobStatus | undefined;
  jobKind?: JobKind | undefined;
  datasetId?: string | undefined;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

/** What happened to a job; the area turns these into console events. */
export interface IngestNotifier {
  jobChanged(job: IngestJobRead): void;
  deliveryQueued(deliveryId: string, job: IngestJobRead): void;
}

export const SILENT_NOTIFIER: IngestNotifier = { jobChanged: () => {}, deliveryQueued: () => {} };

/** Datasets and jobs, always read and written within a tenant + workspace scope. */
export class JobStore {
  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
    private readonly notifier: IngestNotifier = SILENT_NOTIFIER,
  ) {}

  async createDataset(scope: Scope, name: string): Promise<DatasetRead> {
    const row: DatasetRow = { dataset_id: randomUUID(), tenant_id: scope.tenantId, workspace_id: scope.workspaceId, name, created_at: this.now() };
    await this.store.run('INSERT INTO ingest_datasets (dataset_id, tenant_id, workspace_id, name, created_at) VALUES (?, ?, ?, ?, ?)', [
      row.dataset_id,
      row.tenant_id,
      row.workspace_id,
      row.name,
      row.created_at,
    ]);
    return datasetRead(row);
  }

  async dataset(scope: Scope, datasetId: string, db: Queryable = this.store): Promise<DatasetRow> {
    const row = await db.get<DatasetRow>('SELECT * FROM ingest_datasets WHERE dataset_id = ? AND tenant_id = ? AND workspace_id = ?', [datasetId, scope.tenantId, scope.workspaceId]);
    if (!row) throw new ApiError('not_found', `dataset ${datasetId} not found in this tenant and workspace`);
    return row;
  }

  /**
   * createJob with an Idempotency-Key: the first request creates the job and records the key in
   * the same transaction; a repeat (same key, same request) gets that job back, a different
   * request with the key is refused (409). Two repeats racing: the loser's insert conflicts on
   * the key, and it reads the winner's job.
   */
  async createJobOnce(scope: Scope, claim: IdempotencyClaim, job: NewJob, file?: NewFile): Promise<CreatedJob> {
    const earlier = await this.#byKey(scope, claim);
    if (earlier) return { job: earlier, replayed: true };
    try {
      return { job: await this.createJob(scope, job, file, claim), replayed: false };
    } catch (error) {
      const raced = error instanceof ApiError ? null : await this.#byKey(scope, claim);
      if (raced) return { job: raced, replayed: true };
      throw error;
    }
  }

  async #byKey(scope: Scope, claim: IdempotencyClaim): Promise<IngestJobRead | null> {
    const row = await this.store.get<{ fingerprint: string; ingest_job_id: string }>(
      'SELECT fingerprint, ingest_job_id FROM ingest_idempotency_keys WHERE tenant_id = ? AND workspace_id = ? AND idempotency_key = ?',
      [scope.tenantId, scope.workspaceId, claim.key],
    );
    if (!row) return null;
    if (row.fingerprint !== claim.fingerprint) {
      throw new ApiError('conflict', `Idempotency-Key ${JSON.stringify(claim.key)} was used for a different request (job ${row.ingest_job_id}); use a new key for a new request`, [{ field: 'Idempotency-Key', message: 'was used for a different request' }]);
    }
    return jobRead(await this.job(scope, row.ingest_job_id));
  }

  /** Creates a QUEUED job (and its uploaded file, when given) in one transaction, with its Idempotency-Key when given. */
  async createJob(scope: Scope, job: NewJob, file?: NewFile, claim?: IdempotencyClaim): Promise<IngestJobRead> {
    const created = await this.store.transaction(async (tx) => {
      const dataset = await this.dataset(scope, job.datasetId, tx);
      if (job.tableId !== null) {
        const table = await tx.get('SELECT table_id FROM ingest_tables WHERE table_id = ? AND dataset_id = ?', [job.tableId, job.datasetId]);
        if (!table) throw new ApiError('unprocessable', `table_id: table ${job.tableId} is not a table of dataset ${job.datasetId}`, [{ field: 'table_id', message: 'is not a table of the dataset' }]);
      }
      const now = this.now();
      let fileId = job.fileId;
      if (file) {
        fileId = randomUUID();
        await insertFile(tx, fileId, job.datasetId, file, now);
      }
      const row: JobRow = {
        ingest_job_id: randomUUID(),
        tenant_id: scope.tenantId,
        workspace_id: scope.workspaceId,
        dataset_id: job.datasetId,
        table_id: job.tableId,
        file_id: fileId,
        snapshot_id: null,
        job_kind: job.jobKind,
        status: 'QUEUED',
        attempts: 0,
        request_json: JSON.stringify({ ...job.request, dataset_name: dataset.name }),
        result_json: '{}',
        callback_url: job.callback?.url ?? null,
        callback_secret: job.callback?.secret ?? null,
        callback_headers: job.callback ? JSON.stringify(job.callback.headers) : null,
        created_at: now,
        updated_at: now,
        finished_at: null,
        lease_owner: null,
        lease_token: null,
        lease_expires_at: null,
      };
      await tx.run(
        `INSERT INTO ingest_jobs (ingest_job_id, tenant_id, workspace_id, dataset_id, table_id, file_id, snapshot_id, job_kind, status, attempts,
           request_json, result_json, callback_url, callback_secret, callback_headers, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          row.ingest_job_id,
          row.tenant_id,
          row.workspace_id,
          row.dataset_id,
          row.table_id,
          row.file_id,
          row.snapshot_id,
          row.job_kind,
          row.status,
          row.attempts,
          row.request_json,
          row.result_json,
          row.callback_url,
          row.callback_secret,
          row.callback_headers,
          row.created_at,
          row.updated_at,
        ],
      );
      if (claim) {
        await tx.run('INSERT INTO ingest_idempotency_keys (tenant_id, workspace_id, idempotency_key, fingerprint, ingest_job_id, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
          scope.tenantId,
          scope.workspaceId,
          claim.key,
          claim.fingerprint,
          row.ingest_job_id,
          now,
        ]);
      }
      return jobRead(row);
    });
    if (file && 'upload' in file) file.upload.keep();
    this.notifier.jobChanged(created);
    return created;
  }

  async job(scope: Scope, jobId: string, db: Queryable = this.store): Promise<JobRow> {
    const row = await db.get<JobRow>('SELECT * FROM ingest_jobs WHERE ingest_job_id = ? AND tenant_id = ? AND workspace_id = ?', [jobId, scope.tenantId, scope.workspaceId]);
    if (!row) throw new ApiError('not_found', `ingest job ${jobId} not found in this tenant and workspace`);
    return row;
  }

  async listJobs(scope: Scope, filter: JobFilter, limit: number, offset: number): Promise<Page<IngestJobRead>> {
    const where = ['tenant_id = ?', 'workspace_id = ?'];
    const params: Array<string | number> = [scope.tenantId, scope.workspaceId];
    for (const [column, value] of [
      ['status', filter.status],
      ['job_kind', filter.jobKind],
      ['dataset_id', filter.datasetId],
    ] as const) {
      if (value) {
        where.push(`${column} = ?`);
        params.push(value);
      }
    }
    const clause = where.join(' AND ');
    const total = await this.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ingest_jobs WHERE ${clause}`, params);
    const rows = await this.store.all<JobRow>(`SELECT * FROM ingest_jobs WHERE ${clause} ORDER BY created_at DESC, ingest_job_id LIMIT ? OFFSET ?`, [...params, limit, offset]);
    return { items: rows.map(jobRead), total: Number(total?.n ?? 0), limit, offset };
  }

  /** Cancels a QUEUED or RUNNING job; its callback (if any) is queued in the same transaction. */
  async cancel(scope: Scope, jobId: string, actor: string | null): Promise<IngestJobRead> {
    const result = await this.store.transaction(async (tx) => {
      const row = await this.job(scope, jobId, tx);
      if (isTerminal(row.status)) throw new ApiError('conflict', `ingest job ${jobId} is already ${row.status}; only QUEUED or RUNNING jobs can be cancelled`);
      const finished = await finishJob(tx, row.ingest_job_id, ['QUEUED', 'RUNNING'], 'CANCELLED', { ...parse(row.result_json), cancelled_by: actor }, this.now());
      if (!finished) throw new ApiError('conflict', `ingest job ${jobId} changed state while cancelling; try again`);
      return finished;
    });
    this.notifier.jobChanged(result.job);
    if (result.deliveryId) this.notifier.deliveryQueued(result.deliveryId, result.job);
    return result.job;
  }
}

/** The file's row; an upload is renamed to its id first, so a row never names a missing file. */
async function insertFile(tx: Queryable, fileId: string, datasetId: string, file: NewFile, now: number): Promise<void> {
  if ('upload' in file) {
    await file.upload.place(fileId);
    await tx.run("INSERT INTO ingest_files (file_id, dataset_id, filename, content_type, size_bytes, storage, sha256, created_at) VALUES (?, ?, ?, ?, ?, 'data_dir', ?, ?)", [
      fileId,
      datasetId,
      file.filename,
      file.contentType,
      file.upload.size,
      file.upload.sha256,
      now,
    ]);
    return;
  }
  await tx.run("INSERT INTO ingest_files (file_id, dataset_id, filename, content_type, size_bytes, content, storage, created_at) VALUES (?, ?, ?, ?, ?, ?, 'store', ?)", [
    fileId,
    datasetId,
    file.filename,
    file.contentType,
    file.content.byteLength,
    file.content,
    now,
  ]);
}

export interface FinishedJob {
  job: IngestJobRead;
  deliveryId: string | null;
}

/**
 * Moves a job to a terminal status and, when it has a callback target, writes its outbox row:
 * the only path to a terminal status, so the two writes are always in one transaction (the
 * caller's). Returns null when the job was no longer in one of `from` (someone else finished it).
 */
export async function finishJob(
  tx: Queryable,
  jobId: string,
  from: readonly JobStatus[],
  status: TerminalStatus,
  result: Record<string, unknown>,
  now: number,
  changes: { snapshotId?: string | null; tableId?: string | null; leaseToken?: string } = {},
): Promise<FinishedJob | null> {
  const sets = ['status = ?', 'result_json = ?', 'finished_at = ?', 'updated_at = ?', 'lease_owner = NULL', 'lease_token = NULL', 'lease_expires_at = NULL'];
  const params: Array<string | number | null> = [status, JSON.stringify(result), now, now];
  if (changes.snapshotId !== undefined) {
    sets.push('snapshot_id = ?');
    params.push(changes.snapshotId);
  }
  if (changes.tableId !== undefined) {
    sets.push('table_id = ?');
    params.push(changes.tableId);
  }
  let where = `ingest_job_id = ? AND status IN (${from.map(() => '?').join(', ')})`;
  params.push(jobId, ...from);
  if (changes.leaseToken !== undefined) {
    where += ' AND lease_token = ?';
    params.push(changes.leaseToken);
  }
  const updated = await tx.run(`UPDATE ingest_jobs SET ${sets.join(', ')} WHERE ${where}`, params);
  if (updated.changes === 0) return null;
  faultPoint('finish-job:after-status');
  const row = (await tx.get<JobRow>('SELECT * FROM ingest_jobs WHERE ingest_job_id = ?', [jobId]))!;
  const job = jobRead(row);
  if (row.callback_url === null) return { job, deliveryId: null };
  const deliveryId = await insertOutboxRow(tx, {
    job,
    callback: { url: row.callback_url, secret: row.callback_secret, headers: JSON.parse(row.callback_headers ?? '{}') as Record<string, string> },
    event: eventFor(status),
    now,
  });
  faultPoint('finish-job:after-outbox');
  return { job, deliveryId };
}

function parse(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}
