import { randomUUID } from 'node:crypto';
import type { Queryable, SqlValue, Store } from '../store/types.js';
import type { Page } from './job-store.js';
import type { AttemptRead } from './control-types.js';
import { deliveryRead, type AttemptRow, type OutboxRow } from './records.js';
import type { CallbackDeliveryRead, DeliveryStatus } from './types.js';

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


export async function deliveryAttempts(db: Queryable, deliveryId: string): Promise<AttemptRead[]> {
  const rows = await db.all<AttemptRow>('SELECT * FROM ingest_callback_attempts WHERE delivery_id = ? ORDER BY attempt, started_at', [deliveryId]);
  return rows.map((r) => ({
    attempt: Number(r.attempt),
    worker: r.worker,
    started_at: new Date(Number(r.started_at)).toISOString(),
    duration_ms: Number(r.duration_ms),
    status_code: r.status_code === null ? null : Number(r.status_code),
    error: r.error,
    response_body: r.response_body,
  }));
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

/**
 * DEAD rows matching the filter back to PENDING (attempts 0, due now), recorded with who, when
 * and how many in the same transaction. Only DEAD rows move, whatever the filter says.
 */
export async function resetDead(store: Store, filter: DeliveryFilter, actor: string, now: number): Promise<ResetResult> {
  return store.transaction(async (tx) => {
    const { clause, params } = whereOf({ ...filter, status: 'DEAD' });
    const rows = await tx.all<{ id: string }>(`SELECT id FROM ingest_callback_outbox ${clause}`, params);
    const ids = rows.map((r) => r.id);
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      await tx.run(
        `UPDATE ingest_callback_outbox SET status = 'PENDING', attempts = 0, next_attempt_at = ?, finished_at = NULL,
           lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
         WHERE status = 'DEAD' AND id IN (${chunk.map(() => '?').join(', ')})`,
        [now, ...chunk],
      );
    }
    const resetId = randomUUID();
    const { ids: _ids, ...rest } = filter;
    await tx.run('INSERT INTO ingest_delivery_resets (id, actor, at, selector, count) VALUES (?, ?, ?, ?, ?)', [
      resetId,
      actor,
      now,
      JSON.stringify({ ...rest, ...(filter.ids ? { ids: filter.ids.length } : {}) }),
      ids.length,
    ]);
    return { resetId, count: ids.length, ids };
  });
}
