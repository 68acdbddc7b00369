import type { AttemptRead, DeliveryStatus, DeliveryView } from '@portico/daemon/control';

export const STATUS_CYCLE: ReadonlyArray<DeliveryStatus | null> = [null, 'PENDING', 'DELIVERED', 'DEAD'];

export const STATUS_TONE = { PENDING: 'busy', DELIVERED: 'good', DEAD: 'bad' } as const;
export const STATUS_GLYPH = { PENDING: '◐', DELIVERED: '●', DEAD: '✗' } as const;

/** The outcome column: the last status code, `error`, or `-` before the first attempt. */
export function lastOutcome(d: Pick<DeliveryView, 'last_status_code' | 'last_error' | 'attempts'>): string {
  if (d.last_status_code !== null) return String(d.last_status_code);
  if (d.last_error) return d.last_error.startsWith('timeout') ? 'timeout' : 'error';
  return '-';
}

/** `next in 4m` for PENDING rows, the finish time for the others (UTC, minutes). */
export function whenText(d: Pick<DeliveryView, 'status' | 'next_attempt_at' | 'finished_at'>, nowMs: number): string {
  if (d.status === 'PENDING') {
    const ms = Date.parse(d.next_attempt_at) - nowMs;
    return ms <= 0 ? 'due now' : `in ${shortDuration(ms)}`;
  }
  return d.finished_at ? d.finished_at.slice(5, 16).replace('T', ' ') : '';
}

export function shortDuration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.ceil(s / 60)}m`;
  if (s < 48 * 3600) return `${Math.round(s / 360) / 10}h`;
  return `${Math.round(s / 86400)}d`;
}

/** One line of the attempt log. */
export function attemptLine(a: AttemptRead): string {
  const outcome = a.status_code !== null ? `HTTP ${a.status_code}` : 'no answer';
  const error = a.error && a.status_code === null ? `  ${a.error}` : '';
  return `#${a.attempt}  ${a.started_at.slice(0, 19).replace('T', ' ')}  ${outcome}  ${a.duration_ms} ms${error}`;
}

/** Human filter summary shown in the header. */
export function filterText(f: { status: DeliveryStatus | null; jobId: string | null; url: string }): string {
  const parts = [f.status ? `status ${f.status}` : 'all statuses'];
  if (f.jobId) parts.push(`job ${f.jobId.slice(0, 8)}`);
  if (f.url) parts.push(`url ~ "${f.url}"`);
  return parts.join(' · ');
}

export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
