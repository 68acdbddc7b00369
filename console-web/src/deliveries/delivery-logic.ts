import type { AttemptRead, DeliverySelector, DeliveryStatus, DeliveryView, JobView } from '@portico/daemon/control';

export interface DeliveryFilter {
  status: DeliveryStatus | '';
  jobId: string;
  url: string;
}

export const EMPTY_FILTER: DeliveryFilter = { status: '', jobId: '', url: '' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The control API input for a filter; a job id that is not a UUID is reported, not sent. */
export function listInput(filter: DeliveryFilter, limit: number, offset: number): { input: { status?: DeliveryStatus; jobId?: string; url?: string; limit: number; offset: number }; problem: string | null } {
  const jobId = filter.jobId.trim();
  const url = filter.url.trim();
  const problem = jobId && !UUID.test(jobId) ? 'Job must be a full job id (a UUID).' : null;
  return {
    input: { ...(filter.status ? { status: filter.status } : {}), ...(jobId && !problem ? { jobId } : {}), ...(url ? { url } : {}), limit, offset },
    problem,
  };
}

export type ResetScope = { kind: 'one'; id: string } | { kind: 'selected'; ids: readonly string[] } | { kind: 'matching'; filter: DeliveryFilter };

/** What a reset sends and how the question names it. */
export function resetPlan(scope: ResetScope): { selector: DeliverySelector; what: string } {
  if (scope.kind === 'one') return { selector: { ids: [scope.id] }, what: `delivery ${scope.id.slice(0, 8)}` };
  if (scope.kind === 'selected') return { selector: { ids: [...scope.ids] }, what: `${scope.ids.length} selected` };
  const jobId = scope.filter.jobId.trim();
  const url = scope.filter.url.trim();
  const selector: DeliverySelector = { ...(jobId ? { jobId } : {}), ...(url ? { url } : {}) };
  if (!jobId && !url) selector.all = true;
  const what = [jobId && `job ${jobId.slice(0, 8)}`, url && `URL containing “${url}”`].filter(Boolean).join(', ') || 'every job and URL';
  return { selector, what: `all matching: ${what}` };
}

export function confirmText(count: number, what: string): string {
  if (count === 0) return `No DEAD deliveries to reset (${what}).`;
  return `Reset ${count} DEAD ${count === 1 ? 'delivery' : 'deliveries'} (${what}) to PENDING? They are retried at the worker's next poll.`;
}

/** Only DEAD rows can be selected for a reset. */
export function toggleSelected(selected: ReadonlySet<string>, row: Pick<DeliveryView, 'id' | 'status'>): Set<string> {
  const next = new Set(selected);
  if (next.has(row.id)) next.delete(row.id);
  else if (row.status === 'DEAD') next.add(row.id);
  return next;
}

/** Drops selected ids that are no longer DEAD rows on the page (after a refresh). */
export function pruneSelected(selected: ReadonlySet<string>, rows: readonly Pick<DeliveryView, 'id' | 'status'>[]): Set<string> {
  const dead = new Set(rows.filter((r) => r.status === 'DEAD').map((r) => r.id));
  return new Set([...selected].filter((id) => dead.has(id)));
}

export function outcomeText(d: Pick<DeliveryView, 'last_status_code' | 'last_error'>): string {
  if (d.last_status_code !== null) return `HTTP ${d.last_status_code}`;
  return d.last_error ?? '—';
}

export function attemptText(a: AttemptRead): { outcome: string; detail: string } {
  return {
    outcome: a.status_code !== null ? `HTTP ${a.status_code}` : 'no answer',
    detail: [a.status_code === null || a.status_code >= 300 ? a.error : null, a.response_body ? `answer: ${a.response_body.slice(0, 200)}` : null].filter(Boolean).join(' · '),
  };
}

export function durationText(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** The one-line outcome of a job: its error, rows, relations or tables. */
export function jobOutcome(job: Pick<JobView, 'result_json'>): string {
  const r = job.result_json;
  if (typeof r.error === 'string') return r.error;
  if (typeof r.row_count === 'number') return `${r.row_count} rows`;
  if (Array.isArray(r.relations)) return `${r.relations.length} relations`;
  if (Array.isArray(r.tables)) return `${r.tables.length} tables`;
  return '';
}

export const STATUS_TONE = { PENDING: 'busy', DELIVERED: 'good', DEAD: 'bad' } as const;
export const STATUS_GLYPH = { PENDING: '◐', DELIVERED: '●', DEAD: '✗' } as const;
export const JOB_TONE = { QUEUED: 'idle', RUNNING: 'busy', SUCCEEDED: 'good', FAILED: 'bad', CANCELLED: 'idle' } as const;
export const JOB_GLYPH = { QUEUED: '○', RUNNING: '◐', SUCCEEDED: '●', FAILED: '✗', CANCELLED: '–' } as const;
