import { parseNumberString } from '../convert.js';
import { HclNumber } from '../number.js';
import { fromPlain } from '../plain.js';
import { HclMap, HclNull, HclSeq, HclUnknown, sortedKeys, typeName, typeOf, type HclValue } from '../values.js';
import { FunctionArgError, type HclFunction } from './define.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** JSON as go-cty writes it: sorted object keys, exact numbers, and <, >, & escaped like Go's encoder. */
export function toJson(v: HclValue): string {
  if (typeof v === 'string') return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof HclNumber) {
    if (v.inf !== 0) throw new FunctionArgError(0, 'value is infinite and cannot be encoded as JSON');
    return v.toString();
  }
  if (v instanceof HclNull || v instanceof HclUnknown) return 'null';
  if (v instanceof HclSeq) return `[${v.items.map(toJson).join(',')}]`;
  const m: HclMap = v;
  return `{${sortedKeys(m).map((k) => `${toJson(k)}:${toJson(m.entries.get(k) as HclValue)}`).join(',')}}`;
}

/** Parses JSON keeping every number exactly (JSON.parse would round large integers). */
function fromJson(text: string): HclValue {
  const numbers: string[] = [];
  // Numbers are swapped for placeholders the reviver turns back into exact HCL numbers.
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (m) => {
    if (m.startsWith('"')) return m;
    numbers.push(m);
    return `{"\\u0000n":${numbers.length - 1}}`;
  });
  const parsed: unknown = JSON.parse(marked);
  return revive(parsed, numbers);
}

function revive(v: unknown, numbers: string[]): HclValue {
  if (Array.isArray(v)) return new HclSeq('tuple', v.map((x) => revive(x, numbers)));
  if (v !== null && typeof v === 'object') {
    const rec = v as Record<string, unknown>;
    const idx = rec['\u0000n'];
    if (typeof idx === 'number' && Object.keys(rec).length === 1) return parseNumberString(numbers[idx] as string) ?? HclNumber.ZERO;
    const entries = new Map<string, HclValue>();
    for (const k of Object.keys(rec)) entries.set(k, revive(rec[k], numbers));
    return new HclMap('object', entries);
  }
  return fromPlain(v);
}

export const encodingFunctions: Record<string, HclFunction> = {
  base64_encode: { params: [{ name: 'str', type: 'string' }], impl: ([s]) => Buffer.from(s as string, 'utf8').toString('base64') },
  base64_decode: {
    params: [{ name: 'str', type: 'string' }],
    impl: ([s]) => {
      const text = s as string;
      if (!BASE64.test(text)) throw new FunctionArgError(0, 'failed to decode base64 data');
      const bytes = Buffer.from(text, 'base64');
      const decoded = bytes.toString('utf8');
      if (!Buffer.from(decoded, 'utf8').equals(bytes)) throw new FunctionArgError(0, 'the result of decoding the provided string is not valid UTF-8');
      return decoded;
    },
  },
  json_encode: { params: [{ name: 'val', type: 'dynamic', allowNull: true }], impl: ([v]) => toJson(v as HclValue) },
  json_decode: {
    params: [{ name: 'str', type: 'string' }],
    impl: ([s]) => {
      try {
        return fromJson(s as string);
      } catch (error) {
        if (error instanceof SyntaxError) throw new FunctionArgError(0, `invalid JSON: ${error.message}`);
        throw error;
      }
    },
  },
  to_number: {
    params: [{ name: 'num', type: 'dynamic', allowNull: true }],
    impl: ([v]) => {
      if (v instanceof HclNull) return new HclNull('number');
      if (v instanceof HclNumber) return v;
      if (typeof v === 'string') {
        const n = parseNumberString(v);
        if (!n) throw new FunctionArgError(0, `cannot convert "${v}" to number; given string must be a decimal representation of a number`);
        return n;
      }
      throw new FunctionArgError(0, `cannot convert ${typeName(typeOf(v as HclValue))} to number`);
    },
  },
};
