const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration like `5s`, `1m30s`, `250ms` (Go's syntax, as the gateway spec uses) into
 * milliseconds; a bare number means seconds. Throws with the accepted forms on bad input.
 */
export function parseDuration(text: string, what: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(trimmed); match; match = part.exec(trimmed)) {
    total += Number(match[1]) * UNITS[match[2]!]!;
    consumed = part.lastIndex;
  }
  if (consumed === 0 || consumed !== trimmed.length) {
    throw new Error(`${what}: '${text}' is not a duration; write a number and a unit (ns, us, ms, s, m, h), e.g. 5s or 1m30s`);
  }
  return total;
}
