import type { AttemptLogEntry, DeliveryStatus, DeliveryView, JobDeliveryView } from '@portico/daemon/control';
import { deliveryLabel, formatClockOrDate, shortId, triesDetail } from '@portico/daemon/display';
import { printable } from '../format/fit.js';

export const STATUS_CYCLE: ReadonlyArray<DeliveryStatus | null> = [null, 'PENDING', 'DELIVERED', 'DEAD'];

/** The LAST column: the last answer's status and, when it failed, the error text; `-` before the first attempt. */
export function lastText(d: Pick<DeliveryView, 'last_status_code' | 'last_error' | 'attempts'>): string {
  const code = d.last_status_code !== null ? `HTTP ${d.last_status_code}` : '';
  const error = d.last_error ? printable(d.last_error) : '';
  if (error) return code && !error.includes(String(d.last_status_code)) ? `${code}: ${error}` : error;
  return code || '-';
}

/** `next in 4m` for PENDING rows, the finish time for the others (local, with the date when not today). */
export function whenText(d: Pick<DeliveryView, 'status' | 'next_attempt_at' | 'finished_at'>, nowMs: number): string {
  if (d.status === 'PENDING') {
    const ms = Date.parse(d.next_attempt_at) - nowMs;
    return ms <= 0 ? 'due now' : `in ${shortDuration(ms)}`;
  }
  return d.finished_at ? formatClockOrDate(d.finished_at, nowMs) : '';
}

export function shortDuration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.ceil(s / 60)}m`;
  if (s < 48 * 3600) return `${Math.round(s / 360) / 10}h`;
  return `${Math.round(s / 86400)}d`;
}

/** One line of the attempt log: an attempt, or the operator action between two attempts. */
export function attemptLine(e: AttemptLogEntry, nowMs: number): string {
  if (e.kind !== 'attempt') {
    return e.kind === 'reset'
      ? `── reset by ${e.actor} at ${formatClockOrDate(e.at, nowMs)}: a new round after #${e.attempts_before}`
      : `── retry now by ${e.actor} at ${formatClockOrDate(e.at, nowMs)}`;
  }
  const outcome = e.status_code !== null ? `HTTP ${e.status_code}` : 'no answer';
  const error = e.error && e.status_code === null ? `  ${e.error}` : '';
  return `#${e.attempt}  ${formatClockOrDate(e.started_at, nowMs)}  ${outcome}  ${e.duration_ms} ms${error}`;
}

/** A job's callback in one line: state, the round's attempts, the next attempt or the finish. */
export function jobDeliveryText(d: JobDeliveryView, nowMs: number): string {
  const parts = [`${deliveryLabel(d.status).glyph} ${d.status}`, `attempt ${triesDetail(d)}`];
  if (d.status === 'PENDING') parts.push(`next ${whenText(d, nowMs)}`);
  else if (d.finished_at) parts.push(`${d.status === 'DEAD' ? 'gave up' : 'delivered'} ${formatClockOrDate(d.finished_at, nowMs)}`);
  return parts.join(' · ');
}

/** Human filter summary shown in the header. */
export function filterText(f: { status: DeliveryStatus | null; jobId: string | null; url: string }): string {
  const parts = [f.status ? `status ${f.status}` : 'all statuses'];
  if (f.jobId) parts.push(`job ${shortId(f.jobId)}`);
  if (f.url) parts.push(`url ~ "${f.url}"`);
  return parts.join(' · ');
}

