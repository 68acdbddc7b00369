import { HclNumber } from './number.js';

/**
 * HCL's type system (go-cty): primitives, collections (list/set/map with one element
 * type) and structural types (tuple/object with per-element types). `dynamic` is the
 * pseudo-type of `null` literals and of "anything" function parameters.
 */
export type HclType =
  | 'string'
  | 'number'
  | 'bool'
  | 'dynamic'
  | { kind: 'list' | 'set' | 'map'; elem: HclType }
  | { kind: 'tuple'; elems: HclType[] }
  | { kind: 'object'; attrs: Map<string, HclType> };

/** A typed null: `null` literals are `dynamic`, conversions give nulls of other types. */
export class HclNull {
  constructor(readonly type: HclType = 'dynamic') {}
}

/** tuple, list or set; `elem` is the element type for list and set. */
export class HclSeq {
  constructor(
    readonly kind: 'tuple' | 'list' | 'set',
    readonly items: HclValue[],
    readonly elem: HclType = 'dynamic',
  ) {}
}

/** object or map; `elem` is the element type for maps. */
export class HclMap {
  constructor(
    readonly kind: 'object' | 'map',
    readonly entries: Map<string, HclValue>,
    readonly elem: HclType = 'dynamic',
  ) {}
}

/**
 * Stands in for the result of an expression that already produced an error, so
 * evaluation can go on and report independent errors too (upstream's cty.DynamicVal).
 */
export class HclUnknown {
  readonly unknown = true;
}

export type HclValue = string | boolean | HclNumber | HclNull | HclSeq | HclMap | HclUnknown;

export const NULL = new HclNull();
export const UNKNOWN = new HclUnknown();

export function typeOf(v: HclValue): HclType {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof HclNumber) return 'number';
  if (v instanceof HclNull) return v.type;
  if (v instanceof HclUnknown) return 'dynamic';
  if (v instanceof HclSeq) {
    if (v.kind === 'tuple') return { kind: 'tuple', elems: v.items.map(typeOf) };
    return { kind: v.kind, elem: v.elem };
  }
  if (v.kind === 'map') return { kind: 'map', elem: v.elem };
  const attrs = new Map<string, HclType>();
  for (const [k, x] of v.entries) attrs.set(k, typeOf(x));
  return { kind: 'object', attrs };
}

export function isNull(v: HclValue): v is HclNull {
  return v instanceof HclNull;
}

export function tuple(items: HclValue[]): HclSeq {
  return new HclSeq('tuple', items);
}

export function object(entries: Map<string, HclValue>): HclMap {
  return new HclMap('object', entries);
}

export function typesEqual(a: HclType, b: HclType): boolean {
  if (a === b) return true;
  if (typeof a === 'string' || typeof b === 'string') return false;
  if (a.kind !== b.kind) return false;
  if (a.kind === 'tuple' && b.kind === 'tuple') {
    return a.elems.length === b.elems.length && a.elems.every((t, i) => typesEqual(t, b.elems[i] as HclType));
  }
  if (a.kind === 'object' && b.kind === 'object') {
    if (a.attrs.size !== b.attrs.size) return false;
    for (const [k, t] of a.attrs) {
      const u = b.attrs.get(k);
      if (u === undefined || !typesEqual(t, u)) return false;
    }
    return true;
  }
  if ('elem' in a && 'elem' in b) return typesEqual(a.elem, b.elem);
  return false;
}

/** Upstream's "friendly name" of a type, used in error messages. */
export function typeName(t: HclType): string {
  if (typeof t === 'string') return t === 'dynamic' ? 'any type' : t;
  switch (t.kind) {
    case 'list':
    case 'set':
    case 'map':
      return t.elem === 'dynamic' ? `${t.kind} of any single type` : `${t.kind} of ${typeName(t.elem)}`;
    case 'tuple':
      return 'tuple';
    case 'object':
      return 'object';
  }
}

/** Value equality as `==` sees it: same type and same content. */
export function valuesEqual(a: HclValue, b: HclValue): boolean {
  if (a instanceof HclNull || b instanceof HclNull) return a instanceof HclNull && b instanceof HclNull;
  if (typeof a === 'string' || typeof a === 'boolean') return a === b;
  if (a instanceof HclNumber) return b instanceof HclNumber && a.equals(b);
  if (a instanceof HclUnknown || b instanceof HclUnknown) return false;
  if (a instanceof HclSeq) {
    if (!(b instanceof HclSeq) || a.kind !== b.kind || a.items.length !== b.items.length) return false;
    if (a.kind !== 'tuple' && !typesEqual(a.elem, b.elem)) return false;
    if (a.kind === 'set') return a.items.every((x) => b.items.some((y) => valuesEqual(x, y)));
    return a.items.every((x, i) => valuesEqual(x, b.items[i] as HclValue));
  }
  if (!(b instanceof HclMap) || a.kind !== b.kind || a.entries.size !== b.entries.size) return false;
  if (a.kind === 'map' && !typesEqual(a.elem, b.elem)) return false;
  for (const [k, x] of a.entries) {
    const y = b.entries.get(k);
    if (y === undefined || !valuesEqual(x, y)) return false;
  }
  return true;
}

export function sortedKeys(m: HclMap): string[] {
  // Upstream iterates objects and maps in lexicographic (byte) order of keys.
  return [...m.entries.keys()].sort(compareStrings);
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
