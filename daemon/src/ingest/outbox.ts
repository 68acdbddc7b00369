import type { Queryable, SqlValue, Store } from '../store/types.js';
import { DEFAULT_RETRY_SCHEDULE, nextAttemptAfterFailure, type RetrySchedule } from './backoff.js';
import type { OutboxRow } from './records.js';
import { timeOrderedId } from './time-ordered-id.js';
import type { CallbackConfig, CallbackEvent, IngestJobRead } from './types.js';

/** Writes the PENDING row of a job's callback; call inside the transaction that finished the job. */
export async function insertOutboxRow(tx: Queryable, { job, callback, event, now }: { job: IngestJobRead; callback: CallbackConfig; event: CallbackEvent; now: number }): Promise<string> {
  const id = timeOrderedId(now);
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
  /** The attempt's number: every attempt of the row so far, across resets. */
  attempts: number;
  /** Attempts of the current round (since the row was written or last reset). */
  attemptsInRound: number;
  nextAttemptAt: number | null;
}

/** What a claim returns: the columns an attempt reads (the rest stay in the database). */
export type ClaimedRow = Pick<OutboxRow, 'id' | 'ingest_job_id' | 'callback_url' | 'callback_secret' | 'callback_headers' | 'event_type' | 'payload' | 'attempts' | 'attempts_before_reset' | 'next_attempt_at'>;
const CLAIMED_COLUMNS = 'id, ingest_job_id, callback_url, callback_secret, callback_headers, event_type, payload, attempts, attempts_before_reset, next_attempt_at';

// Ordered by the due index alone: a tie-break on id made each claim sort every due row (a burst
// of jobs finished in one transaction shares one next_attempt_at). SQLite compiled the statement
// again on every run while the subquery's LIMIT was a bare parameter (as after a schema change:
// about half the claim's time); as an expression it is bound like any other value.
const CLAIM_SQLITE = `UPDATE ingest_callback_outbox SET lease_owner = ?, lease_token = ?, lease_expires_at = ?
WHERE rowid IN (
  SELECT rowid FROM ingest_callback_outbox
  WHERE status = 'PENDING' AND next_attempt_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
  ORDER BY next_attempt_at LIMIT ? + 0
)
RETURNING ${CLAIMED_COLUMNS}`;

const CLAIM_POSTGRES = `UPDATE ingest_callback_outbox SET lease_owner = ?, lease_token = ?, lease_expires_at = ?
WHERE id IN (
  SELECT id FROM ingest_callback_outbox
  WHERE status = 'PENDING' AND next_attempt_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
  ORDER BY next_attempt_at LIMIT ?
  FOR UPDATE SKIP LOCKED
)
RETURNING ${CLAIMED_COLUMNS}`;

/**
 * Claims up to `limit` due rows with a lease until `leaseUntil`, in one statement: PostgreSQL
 * skips rows another claimer holds locked, so processes never wait on each other; SQLite runs it
 * in an IMMEDIATE transaction (its single writer lock taken up front, never upgraded midway).
 * An expired lease (a worker died) is claimable. Inside `tx` when given (a group commit that
 * refills the batch in the transaction that recorded its results).
 */
export async function claimDue(store: Store, lease: Lease, now: number, leaseUntil: number, limit: number, tx?: Queryable): Promise<ClaimedRow[]> {
  const sql = store.kind === 'postgres' ? CLAIM_POSTGRES : CLAIM_SQLITE;
  const params = [lease.owner, lease.token, leaseUntil, now, now, limit];
  const claim = (db: Queryable) => db.all<ClaimedRow>(sql, params);
  const rows = tx ? await claim(tx) : store.kind === 'sqlite' ? await store.transaction(claim) : await claim(store);
  return rows.sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at));
}

export interface AttemptToRecord {
  row: ClaimedRow;
  lease: Lease;
  outcome: AttemptOutcome;
  now: number;
}

/** Rows written per statement by recordAttempts: a bound on one statement's size (its arrays on PostgreSQL). */
const RECORD_CHUNK = 500;

/**
 * Writes attempts and their rows' new states in one transaction, each only while its lease
 * still holds the row; an entry whose lease was lost (it expired and another worker took the
 * row) writes nothing and comes back as null. A failure waits as `schedule` says. On PostgreSQL
 * a group of any size is one statement (an UPDATE feeding an INSERT: one round trip, and atomic
 * without an explicit transaction); on SQLite, two prepared statements per attempt.
 */
export async function recordAttempts(store: Store, items: readonly AttemptToRecord[], schedule: RetrySchedule = DEFAULT_RETRY_SCHEDULE): Promise<Array<RecordedAttempt | null>> {
  if (items.length === 0) return [];
  const groups = distinctRowGroups(items.map((item, index) => planAttempt(item, schedule, index)));
  const write = async (db: Queryable) => {
    const results: Array<RecordedAttempt | null> = [];
    for (const group of groups) {
      const written = store.kind === 'postgres' ? await writeAttemptsPostgres(db, group) : await writeAttemptsSqlite(db, group);
      for (const p of group) results[p.index] = written.has(p.item.row.id) ? p.result : null;
    }
    return results;
  };
  return store.kind === 'postgres' && groups.length === 1 ? write(store) : store.transaction(write);
}

/** Claims for the slots a group commit frees. */
export interface Refill {
  lease: Lease;
  now: number;
  leaseUntil: number;
  limit: number;
}

/** What a group commit wrote and claimed; on PostgreSQL either part may fail alone. */
export interface GroupCommit {
  results: Array<RecordedAttempt | null> | Error;
  claimed: ClaimedRow[];
  claimError: Error | null;
}

/**
 * A group commit: records `items` and, given `refill`, claims due rows for the slots they free.
 * SQLite: both in one IMMEDIATE transaction (a failure undoes both). PostgreSQL: both at once
 * on two connections, so one round trip in all (the claim skips locked rows and cannot take a
 * row being recorded, whose lease is ours and live); either may fail alone.
 */
export async function recordAndRefill(store: Store, items: readonly AttemptToRecord[], schedule: RetrySchedule, refill: Refill | null): Promise<GroupCommit> {
  const claim = (tx?: Queryable) => (refill ? claimDue(store, refill.lease, refill.now, refill.leaseUntil, refill.limit, tx) : Promise.resolve([]));
  if (store.kind === 'postgres') {
    const [recorded, claimed] = await Promise.allSettled([recordAttempts(store, items, schedule), claim()]);
    return {
      results: recorded.status === 'fulfilled' ? recorded.value : asError(recorded.reason),
      claimed: claimed.status === 'fulfilled' ? claimed.value : [],
      claimError: claimed.status === 'fulfilled' ? null : asError(claimed.reason),
    };
  }
  try {
    return await store.transaction(async (tx) => {
      const groups = distinctRowGroups(items.map((item, index) => planAttempt(item, schedule, index)));
      const results: Array<RecordedAttempt | null> = [];
      for (const group of groups) {
        const written = await writeAttemptsSqlite(tx, group);
        for (const p of group) results[p.index] = written.has(p.item.row.id) ? p.result : null;
      }
      return { results, claimed: await claim(tx), claimError: null };
    });
  } catch (error) {
    // The results' error says it all: nothing was written, nothing claimed.
    return { results: asError(error), claimed: [], claimError: null };
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

interface PlannedAttempt {
  index: number;
  item: AttemptToRecord;
  result: RecordedAttempt;
}

function planAttempt(item: AttemptToRecord, schedule: RetrySchedule, index: number): PlannedAttempt {
  const { row, outcome, now } = item;
  const attempts = Number(row.attempts) + 1;
  const attemptsInRound = attempts - Number(row.attempts_before_reset ?? 0);
  const next = outcome.ok ? null : nextAttemptAfterFailure(schedule, attemptsInRound, now);
  const status: OutboxRow['status'] = outcome.ok ? 'DELIVERED' : next === null ? 'DEAD' : 'PENDING';
  return { index, item, result: { status, attempts, attemptsInRound, nextAttemptAt: next } };
}

/**
 * Splits attempts so no statement holds one row twice (the same row under an old and a new
 * lease): the statements report rows by id, which could not tell the two apart.
 */
function distinctRowGroups(planned: readonly PlannedAttempt[]): PlannedAttempt[][] {
  const groups: Array<{ ids: Set<string>; attempts: PlannedAttempt[] }> = [];
  for (const p of planned) {
    const id = p.item.row.id;
    let group = groups.find((g) => g.attempts.length < RECORD_CHUNK && !g.ids.has(id));
    if (!group) groups.push((group = { ids: new Set(), attempts: [] }));
    group.ids.add(id);
    group.attempts.push(p);
  }
  return groups.map((g) => g.attempts);
}

/** What PostgreSQL's group commit takes per attempt, one array each: the row's new state, then the attempt's own columns. */
const RECORD_COLUMNS = [
  ['id', 'TEXT'],
  ['lease_token', 'TEXT'],
  ['status', 'TEXT'],
  ['attempts', 'INTEGER'],
  ['started_at', 'BIGINT'],
  ['status_code', 'INTEGER'],
  ['error', 'TEXT'],
  ['next_attempt_at', 'BIGINT'],
  ['finished_at', 'BIGINT'],
  ['attempt_id', 'TEXT'],
  ['worker', 'TEXT'],
  ['duration_ms', 'INTEGER'],
  ['response_body', 'TEXT'],
] as const;

function recordRow({ item: { row, lease, outcome, now }, result }: PlannedAttempt): SqlValue[] {
  return [
    row.id,
    lease.token,
    result.status,
    result.attempts,
    outcome.startedAt,
    outcome.statusCode,
    outcome.error,
    result.nextAttemptAt ?? Number(row.next_attempt_at),
    result.status === 'PENDING' ? null : now,
    timeOrderedId(outcome.startedAt),
    lease.owner,
    Math.round(outcome.durationMs),
    outcome.responseBody,
  ];
}

const RECORD_SET = `status = v.status, attempts = v.attempts, last_attempt_at = v.started_at, last_status_code = v.status_code, last_error = v.error,
  next_attempt_at = v.next_attempt_at, finished_at = v.finished_at, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
  FROM v WHERE ingest_callback_outbox.id = v.id AND ingest_callback_outbox.lease_token = v.lease_token AND ingest_callback_outbox.status = 'PENDING'`;
const RECORD_INSERT = `INSERT INTO ingest_callback_attempts (id, delivery_id, attempt, worker, started_at, duration_ms, status_code, error, response_body)
  SELECT v.attempt_id, v.id, v.attempts, v.worker, v.started_at, v.duration_ms, v.status_code, v.error, v.response_body FROM v`;

/**
 * PostgreSQL: the UPDATE feeds the INSERT in one statement; returns the ids whose lease held.
 * The group arrives as one array per column (unnest): the statement's text is the same for any
 * group size, short to parse and plan, where a VALUES list held 13 parameters a row.
 */
const RECORD_POSTGRES = `WITH v AS (SELECT * FROM unnest(${RECORD_COLUMNS.map(([, type]) => `CAST(? AS ${type}[])`).join(', ')}) AS u (${RECORD_COLUMNS.map(([name]) => name).join(', ')})),
  updated AS (UPDATE ingest_callback_outbox SET ${RECORD_SET} RETURNING ingest_callback_outbox.id)
  ${RECORD_INSERT} JOIN updated ON updated.id = v.id RETURNING delivery_id`;

async function writeAttemptsPostgres(db: Queryable, group: readonly PlannedAttempt[]): Promise<Set<string>> {
  const rows = group.map(recordRow);
  const columns: SqlValue[] = RECORD_COLUMNS.map((_, c) => rows.map((row) => row[c] as string | number | null));
  const written = await db.all<{ delivery_id: string }>(RECORD_POSTGRES, columns);
  return new Set(written.map((r) => r.delivery_id));
}

// SQLite runs in-process: a prepared statement per row costs less than binding and materializing
// a VALUES table of the group (no round trips to save), and each binds only its own columns.
const RECORD_ROW_SQLITE = `UPDATE ingest_callback_outbox SET status = ?, attempts = ?, last_attempt_at = ?, last_status_code = ?, last_error = ?,
  next_attempt_at = ?, finished_at = ?, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
  WHERE id = ? AND lease_token = ? AND status = 'PENDING'`;
const INSERT_ATTEMPT_SQLITE = `INSERT INTO ingest_callback_attempts (id, delivery_id, attempt, worker, started_at, duration_ms, status_code, error, response_body)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** SQLite: per attempt, the row's UPDATE and, when its lease held, the attempt's INSERT. */
async function writeAttemptsSqlite(tx: Queryable, group: readonly PlannedAttempt[]): Promise<Set<string>> {
  const held = new Set<string>();
  for (const { item: { row, lease, outcome, now }, result } of group) {
    const finishedAt = result.status === 'PENDING' ? null : now;
    const nextAttemptAt = result.nextAttemptAt ?? Number(row.next_attempt_at);
    const { changes } = await tx.run(RECORD_ROW_SQLITE, [result.status, result.attempts, outcome.startedAt, outcome.statusCode, outcome.error, nextAttemptAt, finishedAt, row.id, lease.token]);
    if (changes === 0) continue;
    held.add(row.id);
    await tx.run(INSERT_ATTEMPT_SQLITE, [timeOrderedId(outcome.startedAt), row.id, result.attempts, lease.owner, outcome.startedAt, Math.round(outcome.durationMs), outcome.statusCode, outcome.error, outcome.responseBody]);
  }
  return held;
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
