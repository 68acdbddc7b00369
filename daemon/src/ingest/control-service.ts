import type { EventDetails } from '../control/client-types.js';
import { PorticoError } from '../core/errors.js';
import { plural } from '../display/counts.js';
import type { Store } from '../store/types.js';
import { DEFAULT_RETRY_SCHEDULE, maxAttempts, type RetrySchedule } from './backoff.js';
import { countDeliveries, deliveryLog, listDeliveries, previewReset, resetDead, retryNow, type DeliveryFilter } from './delivery-queries.js';
import type { JobStore, Page } from './job-store.js';
import { deliveryRead, iso, jobRead, type JobRow, type OutboxRow } from './records.js';
import type { DeliveryCounts, DeliveryDetail, DeliveryListInput, DeliverySelector, DeliveryView, JobDeliveryView, JobListInput, JobView, RetryNowResult } from './control-types.js';

export class SelectorError extends PorticoError {
  override name = 'SelectorError';
  constructor(message: string) {
    super('empty_selector', message, { category: 'invalid' });
  }
}

/** The jobs.* and deliveries.* control services: operator-wide (not tenant-scoped) and secret-free. */
export class IngestControl {
  constructor(
    private readonly store: () => Store,
    private readonly jobStore: () => JobStore,
    private readonly announce: (message: string, details?: EventDetails) => void = () => {},
    private readonly now: () => number = Date.now,
    /** This daemon's retry schedule: how many attempts a round makes before DEAD. */
    private readonly schedule: RetrySchedule = DEFAULT_RETRY_SCHEDULE,
  ) {}

  async listJobs(input: JobListInput): Promise<Page<JobView>> {
    const where: string[] = [];
    const params: Array<string | number> = [];
    for (const [column, value] of [
      ['status', input.status],
      ['job_kind', input.jobKind],
      ['dataset_id', input.datasetId],
      ['tenant_id', input.tenantId],
    ] as const) {
      if (value) {
        where.push(`${column} = ?`);
        params.push(value);
      }
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const db = this.store();
    const total = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ingest_jobs ${clause}`, params);
    const rows = await db.all<JobRow>(`SELECT * FROM ingest_jobs ${clause} ORDER BY created_at DESC, ingest_job_id LIMIT ? OFFSET ?`, [...params, input.limit, input.offset]);
    return { items: await this.#withDeliveries(rows), total: Number(total?.n ?? 0), limit: input.limit, offset: input.offset };
  }

  async getJob(id: string): Promise<JobView | null> {
    const row = await this.store().get<JobRow>('SELECT * FROM ingest_jobs WHERE ingest_job_id = ?', [id]);
    return row ? ((await this.#withDeliveries([row]))[0] ?? null) : null;
  }

  /** Job views with their callback's outbox row (a finished job has at most one). */
  async #withDeliveries(rows: readonly JobRow[]): Promise<JobView[]> {
    const ids = rows.map((r) => r.ingest_job_id);
    const outbox = ids.length === 0 ? [] : await this.store().all<OutboxRow>(`SELECT * FROM ingest_callback_outbox WHERE ingest_job_id IN (${ids.map(() => '?').join(', ')}) ORDER BY created_at`, ids);
    const byJob = new Map(outbox.map((r) => [r.ingest_job_id, r]));
    return rows.map((row) => {
      const delivery = byJob.get(row.ingest_job_id);
      return { ...jobView(row), delivery: delivery ? jobDeliveryView(this.#deliveryView(delivery)) : null };
    });
  }

  async cancelJob(id: string, actor: string): Promise<JobView | null> {
    const row = await this.store().get<JobRow>('SELECT * FROM ingest_jobs WHERE ingest_job_id = ?', [id]);
    if (!row) return null;
    await this.jobStore().cancel({ tenantId: row.tenant_id, workspaceId: row.workspace_id }, id, actor);
    return this.getJob(id);
  }

  async listDeliveries(input: DeliveryListInput): Promise<Page<DeliveryView>> {
    const page = await listDeliveries(this.store(), input, input.limit, input.offset);
    const ids = page.items.map((d) => d.id);
    const extra = ids.length === 0 ? [] : await this.store().all<OutboxRow>(`SELECT * FROM ingest_callback_outbox WHERE id IN (${ids.map(() => '?').join(', ')})`, ids);
    const byId = new Map(extra.map((r) => [r.id, r]));
    return { ...page, items: page.items.map((d) => this.#deliveryView(byId.get(d.id)!)) };
  }

  async getDelivery(id: string): Promise<DeliveryDetail | null> {
    const row = await this.store().get<OutboxRow>('SELECT * FROM ingest_callback_outbox WHERE id = ?', [id]);
    if (!row) return null;
    return { ...this.#deliveryView(row), attempt_log: await deliveryLog(this.store(), id) };
  }

  async countDeliveries(): Promise<DeliveryCounts> {
    return countDeliveries(this.store());
  }

  /** A PENDING delivery due now (audited like a reset); null when there is no such delivery. */
  async retryNow(id: string, actor: string): Promise<RetryNowResult | null> {
    const result = await retryNow(this.store(), id, actor, this.now());
    if (!result) return null;
    const { row } = result;
    this.announce(`retry now: delivery ${row.id} of job ${row.ingest_job_id} is due now (by ${actor})`, { delivery: row.id, job: row.ingest_job_id, action: 'retry', actor });
    return { id: row.id, resetId: result.resetId, next_attempt_at: iso(row.next_attempt_at)! };
  }

  #deliveryView(row: OutboxRow): DeliveryView {
    return deliveryView(row, maxAttempts(this.schedule));
  }

  async previewReset(selector: DeliverySelector): Promise<{ count: number }> {
    return { count: await previewReset(this.store(), filterOf(selector)) };
  }

  async resetDead(selector: DeliverySelector, actor: string): Promise<{ count: number; resetId: string }> {
    const result = await resetDead(this.store(), filterOf(selector), actor, this.now());
    if (result.count > 0) this.announce(`reset ${plural(result.count, 'DEAD delivery', 'DEAD deliveries')} to PENDING (by ${actor})`, { action: 'reset', count: result.count, actor, reset: result.resetId });
    return { count: result.count, resetId: result.resetId };
  }
}

function filterOf(selector: DeliverySelector): DeliveryFilter {
  const filter: DeliveryFilter = { ids: selector.ids, jobId: selector.jobId, url: selector.url, tenantId: selector.tenantId };
  const narrowed = filter.ids !== undefined || filter.jobId || filter.url || filter.tenantId;
  if (!narrowed && selector.all !== true) throw new SelectorError('select DEAD deliveries by ids, job, URL or tenant, or pass all: true to select every DEAD delivery');
  return filter;
}

function maskHeaders(json: string | null): Record<string, '***'> {
  if (!json) return {};
  return Object.fromEntries(Object.keys(JSON.parse(json) as Record<string, string>).map((k) => [k, '***' as const]));
}

export function jobView(row: JobRow): Omit<JobView, 'delivery'> {
  return {
    ...jobRead(row),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    finished_at: iso(row.finished_at),
    callback: row.callback_url ? { url: row.callback_url, secret: row.callback_secret ? '***' : null, headers: maskHeaders(row.callback_headers) } : null,
  };
}

export function deliveryView(row: OutboxRow, maxAttemptsPerRound: number): DeliveryView {
  return {
    ...deliveryRead(row),
    tenant_id: row.tenant_id,
    workspace_id: row.workspace_id,
    signed: row.callback_secret !== null,
    headers: maskHeaders(row.callback_headers),
    attempts_in_round: Number(row.attempts) - Number(row.attempts_before_reset),
    max_attempts: maxAttemptsPerRound,
  };
}

function jobDeliveryView(d: DeliveryView): JobDeliveryView {
  const { id, status, attempts, attempts_in_round, max_attempts, next_attempt_at, last_attempt_at, last_status_code, last_error, finished_at } = d;
  return { id, status, attempts, attempts_in_round, max_attempts, next_attempt_at, last_attempt_at, last_status_code, last_error, finished_at };
}
