import { randomUUID } from 'node:crypto';
import type { Queryable, Store } from '../store/types.js';
import { MAX_ATTEMPTS, nextAttemptAfterFailure } from './backoff.js';
import type { OutboxRow } from './records.js';
import type { CallbackConfig, CallbackEvent, IngestJobRead } from './types.js';

/** Writes the PENDING row of a job's callback; call inside the transaction that finished the job. */
export async function insertOutboxRow(tx: Queryable, { job, callback, event, now }: { job: IngestJobRead; callback: CallbackConfig; event: CallbackEvent; now: number }): Promise<string> {
  const id = randomUUID();
  await tx.run(
    `INSERT INTO ingest_callback_outbox (id, ingest_job_id, tenant_id, workspace_id, callback_url, callback_secret, callback_headers, event_type, payload,
       status, attempts, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', 0, ?, ?)`,
    [id, job.ingest_job_id, job.tenant_id, job.workspace_id, callback.url, callback.secret, JSON.stringify(callback.headers), event, JSON.stringify(job), now, now],
  );
  return id;
}

export interface Lease {
  owner: string;
  token: string;
}

/** One attempt's outcome as the callback worker saw it. */
export interface AttemptOutcome {
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  ok: boolean;
}

export interface RecordedAttempt {
  status: OutboxRow['status'];
  attempts: number;
  nextAttemptAt: number | null;
}

const CLAIM_SQLITE = `UPDATE ingest_callback_outbox SET lease_owner = ?, lease_token = ?, lease_expires_at = ?
WHERE id IN (
  SELECT id FROM ingest_callback_outbox
  WHERE status = 'PENDING' AND next_attempt_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
  ORDER BY next_attempt_at, id LIMIT ?
)
RETURNING *`;

const CLAIM_POSTGRES = `UPDATE ingest_callback_outbox SET lease_owner = ?, lease_token = ?, lease_expires_at = ?
WHERE id IN (
  SELECT id FROM ingest_callback_outbox
  WHERE status = 'PENDING' AND next_attempt_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
  ORDER BY next_attempt_at, id LIMIT ?
  FOR UPDATE SKIP LOCKED
)
RETURNING *`;

/**
 * Claims up to `limit` due rows with a lease until `leaseUntil`, in one statement (no
 * transaction stays open): PostgreSQL skips rows another claimer holds locked; SQLite runs
 * the statement under its single-writer lock. An expired lease (a worker died) is claimable.
 */
export async function claimDue(store: Store, lease: Lease, now: number, leaseUntil: number, limit: number): Promise<OutboxRow[]> {
  const sql = store.kind === 'postgres' ? CLAIM_POSTGRES : CLAIM_SQLITE;
  const rows = await store.all<OutboxRow>(sql, [lease.owner, lease.token, leaseUntil, now, now, limit]);
  return rows.sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at));
}

export interface AttemptToRecord {
  row: OutboxRow;
  lease: Lease;
  outcome: AttemptOutcome;
  now: number;
}

/**
 * Writes attempts and their rows' new states in one transaction, each only while its lease
 * still holds the row; an entry whose lease was lost (it expired and another worker took the
 * row) writes nothing and comes back as null.
 */
export async function recordAttempts(store: Store, items: readonly AttemptToRecord[]): Promise<Array<RecordedAttempt | null>> {
  return store.transaction(async (tx) => {
    const results: Array<RecordedAttempt | null> = [];
    for (const item of items) results.push(await recordOne(tx, item));
    return results;
  });
}

export async function recordAttempt(store: Store, row: OutboxRow, lease: Lease, outcome: AttemptOutcome, now: number): Promise<RecordedAttempt | null> {
  return (await recordAttempts(store, [{ row, lease, outcome, now }]))[0]!;
}

async function recordOne(tx: Queryable, { row, lease, outcome, now }: AttemptToRecord): Promise<RecordedAttempt | null> {
  const attempts = Number(row.attempts) + 1;
  const next = outcome.ok ? null : nextAttemptAfterFailure(attempts, now);
  const status: OutboxRow['status'] = outcome.ok ? 'DELIVERED' : next === null ? 'DEAD' : 'PENDING';
  const updated = await tx.run(
    `UPDATE ingest_callback_outbox SET status = ?, attempts = ?, last_attempt_at = ?, last_status_code = ?, last_error = ?,
       next_attempt_at = ?, finished_at = ?, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
     WHERE id = ? AND lease_token = ? AND status = 'PENDING'`,
    [status, attempts, outcome.startedAt, outcome.statusCode, outcome.error, next ?? Number(row.next_attempt_at), status === 'PENDING' ? null : now, row.id, lease.token],
  );
  if (updated.changes === 0) return null;
  await tx.run(
    `INSERT INTO ingest_callback_attempts (id, delivery_id, attempt, worker, started_at, duration_ms, status_code, error, response_body)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [randomUUID(), row.id, attempts, lease.owner, outcome.startedAt, Math.round(outcome.durationMs), outcome.statusCode, outcome.error, outcome.responseBody],
  );
  return { status, attempts, nextAttemptAt: next };
}

/** Gives rows back without counting an attempt (a stopping worker that aborted its requests). */
export async function releaseLeases(store: Store, ids: readonly string[], lease: Lease): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await store.run(
    `UPDATE ingest_callback_outbox SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL WHERE lease_token = ? AND id IN (${ids.map(() => '?').join(', ')})`,
    [lease.token, ...ids],
  );
  return result.changes;
}

export { MAX_ATTEMPTS };
