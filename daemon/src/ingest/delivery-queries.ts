import { randomUUID } from 'node:crypto';
import { PorticoError } from '../core/errors.js';
import type { Queryable, SqlValue, Store } from '../store/types.js';
import type { Page } from './job-store.js';
import type { AttemptLogEntry, DeliveryCounts } from './control-types.js';
import { deliveryRead, iso, type AttemptRow, type OutboxRow } from './records.js';
import { DELIVERY_STATUSES, type CallbackDeliveryRead, type DeliveryStatus } from './types.js';

/** The spec's listing: one job's deliveries, newest first. */
export async function listJobDeliveries(db: Queryable, jobId: string, status: DeliveryStatus | undefined, limit: number, offset: number): Promise<Page<CallbackDeliveryRead>> {
  return listDeliveries(db, { jobId, status }, limit, offset);
}

/** Operator filter over all deliveries (control API); every field narrows. */
export interface DeliveryFilter {
  status?: DeliveryStatus | undefined;
  jobId?: string | undefined;
  /** Substring of the callback URL. */
  url?: string | undefined;
  tenantId?: string | undefined;
  ids?: readonly string[] | undefined;
}

function whereOf(filter: DeliveryFilter): { clause: string; params: SqlValue[] } {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (filter.status) {
    where.push('status = ?');
    params.push(filter.status);
  }
  if (filter.jobId) {
    where.push('ingest_job_id = ?');
    params.push(filter.jobId);
  }
  if (filter.url) {
    where.push("callback_url LIKE ? ESCAPE '\\'");
    params.push(`%${filter.url.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (filter.tenantId) {
    where.push('tenant_id = ?');
    params.push(filter.tenantId);
  }
  if (filter.ids) {
    where.push(filter.ids.length === 0 ? '1 = 0' : `id IN (${filter.ids.map(() => '?').join(', ')})`);
    params.push(...filter.ids);
  }
  return { clause: where.length > 0 ? `WHERE ${where.join(' AND ')}` : '', params };
}

export async function listDeliveries(db: Queryable, filter: DeliveryFilter, limit: number, offset: number): Promise<Page<CallbackDeliveryRead>> {
  const { clause, params } = whereOf(filter);
  const total = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ingest_callback_outbox ${clause}`, params);
  const rows = await db.all<OutboxRow>(`SELECT * FROM ingest_callback_outbox ${clause} ORDER BY created_at DESC, id LIMIT ? OFFSET ?`, [...params, limit, offset]);
  return { items: rows.map(deliveryRead), total: Number(total?.n ?? 0), limit, offset };
}

interface ActionRow {
  action: 'reset' | 'retry';
  actor: string;
  at: number;
  attempts_before: number;
}

/**
 * A delivery's attempts and the operator actions between them, oldest first. Each action sorts
 * after the attempts made before it (they all started earlier, even on a skewed clock).
 */
export async function deliveryLog(db: Queryable, deliveryId: string): Promise<AttemptLogEntry[]> {
  const attempts = await db.all<AttemptRow>('SELECT * FROM ingest_callback_attempts WHERE delivery_id = ? ORDER BY started_at, attempt', [deliveryId]);
  const actions = await db.all<ActionRow>(
    `SELECT r.action, r.actor, r.at, x.attempts_before FROM ingest_delivery_reset_rows x JOIN ingest_delivery_resets r ON r.id = x.reset_id
     WHERE x.delivery_id = ? ORDER BY r.at, x.attempts_before`,
    [deliveryId],
  );
  const entries: Array<{ at: number; order: number; entry: AttemptLogEntry }> = [
    ...attempts.map((r) => ({
      at: Number(r.started_at),
      order: Number(r.attempt),
      entry: {
        kind: 'attempt' as const,
        attempt: Number(r.attempt),
        worker: r.worker,
        started_at: iso(r.started_at)!,
        duration_ms: Number(r.duration_ms),
        status_code: r.status_code === null ? null : Number(r.status_code),
        error: r.error,
        response_body: r.response_body,
      },
    })),
    ...actions.map((a) => ({
      at: Number(a.at),
      order: Number(a.attempts_before) + 0.5,
      entry: { kind: a.action, actor: a.actor, at: iso(a.at)!, attempts_before: Number(a.attempts_before) },
    })),
  ];
  return entries.sort((a, b) => a.order - b.order || a.at - b.at).map((e) => e.entry);
}

/** How many deliveries are in each status (the DEAD count of the consoles). */
export async function countDeliveries(db: Queryable): Promise<DeliveryCounts> {
  const rows = await db.all<{ status: DeliveryStatus; n: number }>('SELECT status, COUNT(*) AS n FROM ingest_callback_outbox GROUP BY status');
  const counts = Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, 0])) as DeliveryCounts;
  for (const row of rows) if (row.status in counts) counts[row.status] = Number(row.n);
  return counts;
}

/** How many DEAD rows a reset with this filter would move (the count shown before confirming). */
export async function previewReset(db: Queryable, filter: DeliveryFilter): Promise<number> {
  const { clause, params } = whereOf({ ...filter, status: 'DEAD' });
  const row = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ingest_callback_outbox ${clause}`, params);
  return Number(row?.n ?? 0);
}

export interface ResetResult {
  resetId: string;
  count: number;
  ids: string[];
}

const CHUNK = 500;

/**
 * DEAD rows matching the filter back to PENDING, due now, for a new round of the retry schedule
 * (attempt numbers go on), recorded with who, when and how many, and on each row's log, in the
 * same transaction. Only DEAD rows move, whatever the filter says.
 */
export async function resetDead(store: Store, filter: DeliveryFilter, actor: string, now: number): Promise<ResetResult> {
  return store.transaction(async (tx) => {
    const { clause, params } = whereOf({ ...filter, status: 'DEAD' });
    const rows = await tx.all<{ id: string; attempts: number }>(`SELECT id, attempts FROM ingest_callback_outbox ${clause}`, params);
    const resetId = randomUUID();
    const { ids: _ids, ...rest } = filter;
    await recordAction(tx, { resetId, action: 'reset', actor, now, selector: { ...rest, ...(filter.ids ? { ids: filter.ids.length } : {}) }, rows });
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK).map((r) => r.id);
      await tx.run(
        `UPDATE ingest_callback_outbox SET status = 'PENDING', attempts_before_reset = attempts, next_attempt_at = ?, finished_at = NULL,
           lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
         WHERE status = 'DEAD' AND id IN (${chunk.map(() => '?').join(', ')})`,
        [now, ...chunk],
      );
    }
    return { resetId, count: rows.length, ids: rows.map((r) => r.id) };
  });
}

/** A delivery that is not in the state an operator action needs; the message says why and what to do. */
export class DeliveryStateError extends PorticoError {
  override name = 'DeliveryStateError';
  constructor(message: string) {
    super('delivery_state', message, { category: 'conflict' });
  }
}

export interface RetryResult {
  resetId: string;
  row: OutboxRow;
}

/**
 * Makes a PENDING row due now, so the next poll of a callback worker attempts it, recorded like a
 * reset (who, when, which row). Refuses a row that is not PENDING, or whose attempt is under way.
 * Null when no such row exists.
 */
export async function retryNow(store: Store, id: string, actor: string, now: number): Promise<RetryResult | null> {
  return store.transaction(async (tx) => {
    const row = await tx.get<OutboxRow>('SELECT * FROM ingest_callback_outbox WHERE id = ?', [id]);
    if (!row) return null;
    const short = id.slice(0, 8);
    if (row.status === 'DEAD') throw new DeliveryStateError(`delivery ${short} is DEAD, not PENDING: reset it to PENDING instead (portico deliveries reset --id ${id})`);
    if (row.status !== 'PENDING') throw new DeliveryStateError(`delivery ${short} is ${row.status}: only a PENDING delivery can be retried now`);
    if (row.lease_expires_at !== null && Number(row.lease_expires_at) > now) {
      throw new DeliveryStateError(`delivery ${short} is being attempted right now (by ${row.lease_owner ?? 'a callback worker'}); its outcome sets the next attempt`);
    }
    const updated = await tx.run(`UPDATE ingest_callback_outbox SET next_attempt_at = ? WHERE id = ? AND status = 'PENDING'`, [now, id]);
    if (updated.changes === 0) throw new DeliveryStateError(`delivery ${short} changed while being retried; look at it again`);
    const resetId = randomUUID();
    await recordAction(tx, { resetId, action: 'retry', actor, now, selector: { ids: 1 }, rows: [row] });
    return { resetId, row: { ...row, next_attempt_at: now } };
  });
}

/** The audit record of an operator action: one row for the action, one per delivery it touched. */
async function recordAction(
  tx: Queryable,
  { resetId, action, actor, now, selector, rows }: { resetId: string; action: 'reset' | 'retry'; actor: string; now: number; selector: object; rows: ReadonlyArray<{ id: string; attempts: number }> },
): Promise<void> {
  await tx.run('INSERT INTO ingest_delivery_resets (id, action, actor, at, selector, count) VALUES (?, ?, ?, ?, ?, ?)', [resetId, action, actor, now, JSON.stringify(selector), rows.length]);
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    await tx.run(
      `INSERT INTO ingest_delivery_reset_rows (reset_id, delivery_id, attempts_before) VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')}`,
      chunk.flatMap((r) => [resetId, r.id, Number(r.attempts)]),
    );
  }
}
