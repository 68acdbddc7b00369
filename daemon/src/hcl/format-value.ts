import { HclNumber } from './number.js';
import { HclMap, HclNull, HclSeq, HclUnknown, type HclValue } from './values.js';

const BARE_KEY = /^[\p{ID_Start}_][\p{ID_Continue}-]*$/u;

/** HCL-ish rendering for the CLI: `{ a = 1, "b c" = [true, null] }`, strings JSON-quoted. */
export function formatValue(v: HclValue, indent = ''): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof HclNumber) return v.toString();
  if (v instanceof HclNull || v instanceof HclUnknown) return 'null';
  const inner = `${indent}  `;
  if (v instanceof HclSeq) {
    if (v.items.length === 0) return '[]';
    return `[\n${v.items.map((x) => `${inner}${formatValue(x, inner)},`).join('\n')}\n${indent}]`;
  }
  const m: HclMap = v;
  if (m.entries.size === 0) return '{}';
  const lines = [...m.entries].map(([k, x]) => `${inner}${BARE_KEY.test(k) ? k : JSON.stringify(k)} = ${formatValue(x, inner)}`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}
