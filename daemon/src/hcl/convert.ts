import { HclNumber } from './number.js';
import { HclMap, HclNull, HclSeq, HclUnknown, typeName, typeOf, typesEqual, type HclType, type HclValue } from './values.js';
import { PorticoError } from '../core/errors.js';

/** A value does not fit the wanted type; the message is upstream's wording ("a number is required"). */
export class ConversionError extends PorticoError {
  override name = 'ConversionError';
  constructor(message: string) {
    super('hcl_conversion', message, { category: 'invalid' });
  }
}

/** Converts a value to a type following go-cty's conversion rules (including the "unsafe" string ones). */
export function convert(v: HclValue, want: HclType): HclValue {
  if (want === 'dynamic' || v instanceof HclUnknown) return v;
  if (v instanceof HclNull) return new HclNull(want);
  if (typeof want === 'string') return convertPrimitive(v, want);
  switch (want.kind) {
    case 'list':
    case 'set': {
      if (!(v instanceof HclSeq)) throw new ConversionError(`${typeName(want)} required`);
      let elem = want.elem;
      if (elem === 'dynamic') {
        const unified = unify(v.items.map(typeOf));
        if (!unified) throw new ConversionError(`all ${want.kind} elements must have the same type`);
        elem = unified;
      }
      const items = v.items.map((x) => convert(x, elem));
      return new HclSeq(want.kind, want.kind === 'set' ? dedupe(items) : items, elem);
    }
    case 'map': {
      if (!(v instanceof HclMap)) throw new ConversionError(`${typeName(want)} required`);
      let elem = want.elem;
      if (elem === 'dynamic') {
        const unified = unify([...v.entries.values()].map(typeOf));
        if (!unified) throw new ConversionError('all map elements must have the same type');
        elem = unified;
      }
      const entries = new Map<string, HclValue>();
      for (const [k, x] of v.entries) entries.set(k, convert(x, elem));
      return new HclMap('map', entries, elem);
    }
    case 'tuple': {
      if (!(v instanceof HclSeq) || v.kind === 'set') throw new ConversionError('tuple required');
      if (v.items.length !== want.elems.length) throw new ConversionError(`tuple required with ${want.elems.length} elements`);
      return new HclSeq('tuple', v.items.map((x, i) => convert(x, want.elems[i] as HclType)));
    }
    case 'object': {
      if (!(v instanceof HclMap)) throw new ConversionError('object required');
      const entries = new Map<string, HclValue>();
      for (const [k, t] of want.attrs) {
        const x = v.entries.get(k);
        if (x === undefined) throw new ConversionError(`attribute "${k}" is required`);
        entries.set(k, convert(x, t));
      }
      return new HclMap('object', entries);
    }
  }
}

function convertPrimitive(v: HclValue, want: 'string' | 'number' | 'bool'): HclValue {
  switch (want) {
    case 'string':
      if (typeof v === 'string') return v;
      if (typeof v === 'boolean') return v ? 'true' : 'false';
      if (v instanceof HclNumber) return v.toString();
      throw new ConversionError('string required');
    case 'number':
      if (v instanceof HclNumber) return v;
      if (typeof v === 'string') {
        const n = parseNumberString(v);
        if (!n) throw new ConversionError('a number is required');
        return n;
      }
      throw new ConversionError('number required');
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string') {
        if (v === 'true' || v === '1') return true;
        if (v === 'false' || v === '0') return false;
        const lower = v.toLowerCase();
        if (lower === 'true' || lower === 'false') throw new ConversionError(`a bool is required; to convert from string, use lowercase "${lower}"`);
        throw new ConversionError('a bool is required');
      }
      throw new ConversionError('bool required');
  }
}

/** What go-cty's string-to-number conversion accepts: a decimal with optional sign and exponent. */
export function parseNumberString(s: string): HclNumber | undefined {
  if (s === 'Inf' || s === '+Inf' || s === 'inf' || s === '+inf') return HclNumber.POS_INF;
  if (s === '-Inf' || s === '-inf') return HclNumber.NEG_INF;
  return HclNumber.parse(s);
}

function dedupe(items: HclValue[]): HclValue[] {
  const out: HclValue[] = [];
  for (const x of items) if (!out.some((y) => sameValue(x, y))) out.push(x);
  return out;
}

function sameValue(a: HclValue, b: HclValue): boolean {
  if (a instanceof HclNumber && b instanceof HclNumber) return a.equals(b);
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  return JSON.stringify(debugShape(a)) === JSON.stringify(debugShape(b));
}

function debugShape(v: HclValue): unknown {
  if (v instanceof HclNumber) return `#${v.toString()}`;
  if (v instanceof HclNull) return null;
  if (v instanceof HclSeq) return v.items.map(debugShape);
  if (v instanceof HclMap) return [...v.entries].map(([k, x]) => [k, debugShape(x)]);
  return v;
}

/**
 * go-cty's type unification, used by conditionals and by `dynamic` collection
 * conversions: returns the type every input converts to, or undefined.
 */
export function unify(types: HclType[]): HclType | undefined {
  const first = types[0];
  if (first === undefined) return 'dynamic';
  if (types.every((t) => typesEqual(t, first))) return first;
  if (types.some((t) => t === 'dynamic')) return 'dynamic';
  if (types.every((t) => typeof t === 'string')) {
    // Mixed primitives unify only through string (number and bool both convert to it).
    return types.includes('string') ? 'string' : undefined;
  }
  if (types.some((t) => typeof t === 'string')) return undefined;
  const structured = types as Exclude<HclType, string>[];
  const kinds = new Set(structured.map((t) => t.kind));
  if ([...kinds].every((k) => k === 'tuple' || k === 'list')) return unifySequences(structured, kinds);
  if ([...kinds].every((k) => k === 'object' || k === 'map')) return unifyMappings(structured, kinds);
  if ([...kinds].every((k) => k === 'set')) {
    const elem = unify(structured.map((t) => (t as { elem: HclType }).elem));
    return elem ? { kind: 'set', elem } : undefined;
  }
  return undefined;
}

function unifySequences(types: Exclude<HclType, string>[], kinds: Set<string>): HclType | undefined {
  if (kinds.size === 1 && kinds.has('tuple')) {
    const tuples = types as { kind: 'tuple'; elems: HclType[] }[];
    const n = tuples[0]?.elems.length ?? 0;
    if (tuples.every((t) => t.elems.length === n)) {
      const elems: HclType[] = [];
      for (let i = 0; i < n; i++) {
        const u = unify(tuples.map((t) => t.elems[i] as HclType));
        if (!u) return undefined;
        elems.push(u);
      }
      return { kind: 'tuple', elems };
    }
  }
  const elemTypes = types.flatMap((t) => (t.kind === 'tuple' ? t.elems : [(t as { elem: HclType }).elem]));
  const elem = unify(elemTypes);
  return elem ? { kind: 'list', elem } : undefined;
}

function unifyMappings(types: Exclude<HclType, string>[], kinds: Set<string>): HclType | undefined {
  if (kinds.size === 1 && kinds.has('object')) {
    const objects = types as { kind: 'object'; attrs: Map<string, HclType> }[];
    const keys = [...(objects[0]?.attrs.keys() ?? [])].sort();
    const sameKeys = objects.every((o) => o.attrs.size === keys.length && keys.every((k) => o.attrs.has(k)));
    if (sameKeys) {
      const attrs = new Map<string, HclType>();
      for (const k of keys) {
        const u = unify(objects.map((o) => o.attrs.get(k) as HclType));
        if (!u) return undefined;
        attrs.set(k, u);
      }
      return { kind: 'object', attrs };
    }
  }
  const elemTypes = types.flatMap((t) => (t.kind === 'object' ? [...t.attrs.values()] : [(t as { elem: HclType }).elem]));
  const elem = unify(elemTypes);
  return elem ? { kind: 'map', elem } : undefined;
}
