/** An epoch time as the log lines show it (ISO 8601, UTC, ms); the last one is kept, as many lines share their millisecond. */
let lastMs = Number.NaN;
let lastIso = '';

export function isoTime(at: number | Date): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
