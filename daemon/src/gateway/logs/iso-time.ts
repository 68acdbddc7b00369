/**
 * An epoch time as the log lines show it (ISO 8601, UTC, ms). The last two are kept: many lines
 * share their millisecond, and a request's backend line and its access line, written one after
 * the other, often start in two different ones (one slot made each pair format both again).
 */
let newestMs = Number.NaN;
let newestIso = '';
let olderMs = Number.NaN;
let olderIso = '';

export function isoTime(at: number | Date): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  if (ms === newestMs) return newestIso;
  if (ms === olderMs) return olderIso;
  olderMs = newestMs;
  olderIso = newestIso;
  newestMs = ms;
  newestIso = new Date(ms).toISOString();
  return newestIso;
}
