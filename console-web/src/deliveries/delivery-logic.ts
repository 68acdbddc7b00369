import type { AttemptRead, DeliverySelector, DeliveryStatus, DeliveryView } from '@portico/daemon/control';
import { plural, shortId } from '@portico/daemon/display';

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
  if (scope.kind === 'one') return { selector: { ids: [scope.id] }, what: `delivery ${shortId(scope.id)}` };
  if (scope.kind === 'selected') return { selector: { ids: [...scope.ids] }, what: `${scope.ids.length} selected` };
  const jobId = scope.filter.jobId.trim();
  const url = scope.filter.url.trim();
  const selector: DeliverySelector = { ...(jobId ? { jobId } : {}), ...(url ? { url } : {}) };
  if (!jobId && !url) selector.all = true;
  const what = [jobId && `job ${shortId(jobId)}`, url && `URL containing “${url}”`].filter(Boolean).join(', ') || 'every job and URL';
  return { selector, what: `all matching: ${what}` };
}

export function confirmText(count: number, what: string): string {
  if (count === 0) return `No DEAD deliveries to reset (${what}).`;
  return `Reset ${plural(count, 'DEAD delivery', 'DEAD deliveries')} (${what}) to PENDING? They are retried at the worker's next poll.`;
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

/** The Deliveries view's address state: `/deliveries?status=DEAD&job=<uuid>&url=hooks&delivery=<uuid>`. */
export const DELIVERIES_URL = { status: '', job: '', url: '', delivery: '' };

/** Where a delivery is shown, filtered to its job, with its attempt log open (the Jobs view links there). */
export function deliveryPath(id: string, jobId: string): string {
  return `/deliveries?${new URLSearchParams({ job: jobId, delivery: id }).toString()}`;
}

/** The filter an address names; an unknown status reads as "all". */
export function filterFromUrl(url: typeof DELIVERIES_URL): DeliveryFilter {
  const status = (['PENDING', 'DELIVERED', 'DEAD'] as const).find((s) => s === url.status) ?? '';
  return { status, jobId: url.job, url: url.url };
}

/** The delivery an older `/deliveries/<id>` link selects, or null. */
export function deliveryIdFromPath(path: string): string | null {
  const m = /^\/deliveries\/([^/]+)\/?$/.exec(path);
  const id = m?.[1] ?? null;
  return id !== null && UUID.test(id) ? id.toLowerCase() : null;
}

export function retryConfirmText(id: string): string {
  return `Retry delivery ${shortId(id)} now? A callback worker attempts it at its next poll instead of at its scheduled time.`;
}

/** The notice after a retry now. */
export function retriedText(id: string): string {
  return `Delivery ${shortId(id)} is due now; a callback worker attempts it at its next poll.`;
}

/** When a delivery is next tried, or when it ended, with the word for it. */
export function deliveryWhen(d: Pick<DeliveryView, 'status' | 'next_attempt_at' | 'finished_at'>): { word: 'next attempt' | 'delivered' | 'gave up'; at: string } | null {
  if (d.status === 'PENDING') return { word: 'next attempt', at: d.next_attempt_at };
  if (!d.finished_at) return null;
  return { word: d.status === 'DEAD' ? 'gave up' : 'delivered', at: d.finished_at };
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
