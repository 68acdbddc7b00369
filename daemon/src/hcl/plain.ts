import { HclNumber, NumberRangeError } from './number.js';
import { HclMap, HclNull, HclSeq, HclUnknown, NULL, typeOf, typesEqual, type HclType, type HclValue } from './values.js';
import { PorticoError } from '../core/errors.js';

/** What callers pass in and get back: JSON-like JS values. */
export type PlainValue = null | string | number | boolean | PlainValue[] | { [key: string]: PlainValue };

/** Raised when a caller-supplied variable cannot be represented in HCL (a function, NaN, a cycle...). */
export class PlainConversionError extends PorticoError {
  override name = 'PlainConversionError';
  constructor(message: string) {
    super('hcl_plain_conversion', message, { category: 'invalid' });
  }
}

/**
 * Plain JS -> HCL. Arrays become tuples and plain objects become objects, as when the
 * same data is written as HCL literals; a JS `Map` becomes an HCL map and a `Set` a set,
 * for callers (like request headers) that want upstream's map semantics (e.g. `length`).
 */
export function fromPlain(input: unknown, seen: Set<object> = new Set()): HclValue {
  if (input === null || input === undefined) return NULL;
  switch (typeof input) {
    case 'string':
    case 'boolean':
      return input;
    case 'number':
      try {
        return HclNumber.fromJs(input);
      } catch (error) {
        throw new PlainConversionError(error instanceof NumberRangeError ? error.message : String(error));
      }
    case 'bigint':
      return HclNumber.fromBigInt(input);
    case 'object':
      break;
    default:
      throw new PlainConversionError(`a ${typeof input} cannot be used as an HCL value`);
  }
  if (input instanceof HclNumber || input instanceof HclNull || input instanceof HclSeq || input instanceof HclMap || input instanceof HclUnknown) return input;
  if (seen.has(input)) throw new PlainConversionError('a value that contains itself cannot be used as an HCL value');
  seen.add(input);
  try {
    if (Array.isArray(input)) return new HclSeq('tuple', input.map((x) => fromPlain(x, seen)));
    if (input instanceof Set) {
      const items = [...input].map((x) => fromPlain(x, seen));
      return new HclSeq('set', items, commonType(items));
    }
    if (input instanceof Map) {
      const entries = new Map<string, HclValue>();
      for (const [k, x] of input) entries.set(String(k), fromPlain(x, seen));
      return new HclMap('map', entries, commonType([...entries.values()]));
    }
    if (input instanceof Date) return input.toISOString();
    const entries = new Map<string, HclValue>();
    for (const k of Object.keys(input)) entries.set(k, fromPlain((input as Record<string, unknown>)[k], seen));
    return new HclMap('object', entries);
  } finally {
    seen.delete(input);
  }
}

function commonType(items: HclValue[]): HclType {
  const first = items[0];
  if (first === undefined) return 'dynamic';
  const t = typeOf(first);
  return items.every((x) => typesEqual(typeOf(x), t)) ? t : 'dynamic';
}

/** HCL -> plain JS: numbers, strings, booleans, null, arrays (tuple/list/set), plain objects (object/map). */
export function toPlain(v: HclValue): PlainValue {
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof HclNumber) return v.toJs();
  if (v instanceof HclNull || v instanceof HclUnknown) return null;
  if (v instanceof HclSeq) return v.items.map(toPlain);
  const out: { [key: string]: PlainValue } = {};
  for (const [k, x] of v.entries) {
    // Defined, not assigned, so a key named "__proto__" stays an ordinary key.
    if (k === '__proto__') Object.defineProperty(out, k, { value: toPlain(x), enumerable: true, writable: true, configurable: true });
    else out[k] = toPlain(x);
  }
  return out;
}
