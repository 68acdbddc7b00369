/*
 * Durations in Go's syntax (`300ms`, `1h30m`, `1.5s`), as the gateway spec and the peer use
 * them: `parseGoDuration` for configuration attributes, `parseDuration` for the daemon's
 * environment variables (also a bare number of seconds, never negative).
 */

/** Nanoseconds per unit of Go's `time.ParseDuration` (both micro signs, as Go accepts). */
const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/**
 * Go's duration syntax (`300ms`, `1h30m`, `1.5s`, `0`), as the peer parses it, in
 * milliseconds; a string is Go's error message. Bare numbers other than 0 have no unit
 * and are refused, as in Go.
 */
export function parseGoDuration(text: string): number | string {
  const invalid = `time: invalid duration ${JSON.stringify(text)}`;
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    sign = s.startsWith('-') ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return invalid;
  let total = 0;
  while (s !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(s);
    const [whole = '', intPart = '', fracPart] = number ?? [];
    if (intPart === '' && (fracPart === undefined || fracPart === '')) return invalid;
    s = s.slice(whole.length);
    const unitLength = s.search(/[.\d]/);
    const unit = unitLength === -1 ? s : s.slice(0, unitLength);
    if (unit === '') return `time: missing unit in duration ${JSON.stringify(text)}`;
    // Own entries only: `1constructor` names no unit.
    const factor = Object.hasOwn(DURATION_UNITS, unit) ? DURATION_UNITS[unit] : undefined;
    if (factor === undefined) return `time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`;
    total += Number(`${intPart || '0'}.${fracPart ?? ''}0`) * factor;
    s = s.slice(unit.length);
  }
  return (sign * total) / 1e6;
}

/**
 * Parses an environment duration like `5s`, `1m30s`, `250ms` into milliseconds; a bare number
 * means seconds. Throws with the accepted forms on bad or negative input.
 */
export function parseDuration(text: string, what: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const ms = /^\d/.test(trimmed) ? parseGoDuration(trimmed) : 'not a duration';
  if (typeof ms === 'string') throw new Error(`${what}: '${text}' is not a duration; write a number and a unit (ns, us, ms, s, m, h), e.g. 5s or 1m30s`);
  return ms;
}
