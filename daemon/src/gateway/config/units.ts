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
    const factor = DURATION_UNITS[unit];
    if (factor === undefined) return `time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`;
    total += Number(`${intPart || '0'}.${fracPart ?? ''}0`) * factor;
    s = s.slice(unit.length);
  }
  return (sign * total) / 1e6;
}

const SIZE_UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/** `64MiB`, `512KiB`, `1.5GiB`, `100B` in bytes (whole bytes, rounded down); a string is the problem. */
export function parseSize(text: string): number | string {
  const match = /^(\d+(?:\.\d+)?)(B|KiB|MiB|GiB)$/.exec(text.trim());
  if (!match) return `${JSON.stringify(text)} is not a size; write a number and one of the units B, KiB, MiB, GiB, e.g. 64MiB`;
  return Math.floor(Number(match[1]) * (SIZE_UNITS[match[2] as string] as number));
}
