import { convert, unify } from '../convert.js';
import { HclNumber } from '../number.js';
import { HclMap, HclNull, HclSeq, NULL, sortedKeys, valuesEqual, typesEqual, typeOf, type HclValue } from '../values.js';
import { FunctionArgError, type HclFunction } from './define.js';

const LIST_OF_STRING = { kind: 'list', elem: 'string' } as const;

function mergeValues(current: HclValue, next: HclValue): HclValue {
  if (current instanceof HclMap && next instanceof HclMap) {
    const entries = new Map(current.entries);
    for (const [k, v] of next.entries) {
      // A null attribute removes the previous value (Couper's documented behaviour).
      if (v instanceof HclNull) entries.delete(k);
      else {
        const prev = entries.get(k);
        entries.set(k, prev === undefined ? v : mergeValues(prev, v));
      }
    }
    return new HclMap('object', entries);
  }
  if (current instanceof HclSeq && next instanceof HclSeq && current.kind !== 'set' && next.kind !== 'set') {
    return new HclSeq('tuple', [...current.items, ...next.items]);
  }
  // A value of another type replaces the current one.
  return next;
}

export const collectionFunctions: Record<string, HclFunction> = {
  contains: {
    params: [{ name: 'list', type: 'dynamic' }, { name: 'value', type: 'dynamic', allowNull: true }],
    impl: ([list, value]) => {
      if (!(list instanceof HclSeq)) throw new FunctionArgError(0, 'argument must be list, tuple, or set');
      return list.items.some((x) => valuesEqual(x, value as HclValue));
    },
  },
  default: {
    params: [],
    varParam: { name: 'arg', type: 'dynamic', allowNull: true },
    impl: (args) => {
      for (const a of args) if (!(a instanceof HclNull) && a !== '') return a;
      return args[args.length - 1] ?? NULL;
    },
  },
  join: {
    params: [{ name: 'separator', type: 'string' }],
    varParam: { name: 'lists', type: LIST_OF_STRING },
    impl: ([sep, ...lists]) => {
      if (lists.length === 0) throw new Error('at least one list is required');
      const items: string[] = [];
      lists.forEach((list, i) => {
        for (const [j, x] of (list as HclSeq).items.entries()) {
          if (x instanceof HclNull) throw new FunctionArgError(i + 1, `element ${j} is null`);
          items.push(x as string);
        }
      });
      return items.join(sep as string);
    },
  },
  keys: {
    params: [{ name: 'inputMap', type: 'dynamic' }],
    impl: ([m]) => {
      if (!(m instanceof HclMap)) throw new FunctionArgError(0, 'must have map or object type');
      const keys = sortedKeys(m);
      return m.kind === 'map' ? new HclSeq('list', keys, 'string') : new HclSeq('tuple', keys);
    },
  },
  length: {
    params: [{ name: 'collection', type: 'dynamic' }],
    impl: ([c]) => {
      if (c instanceof HclSeq) return HclNumber.fromJs(c.items.length);
      if (c instanceof HclMap && c.kind === 'map') return HclNumber.fromJs(c.entries.size);
      throw new FunctionArgError(0, 'collection must be a list, a map or a tuple');
    },
  },
  lookup: {
    params: [{ name: 'inputMap', type: 'dynamic' }, { name: 'key', type: 'string' }, { name: 'default', type: 'dynamic', allowNull: true }],
    impl: ([m, key, fallback]) => {
      if (!(m instanceof HclMap)) throw new FunctionArgError(0, 'the given object has no attribute or map element');
      const found = m.entries.get(key as string);
      if (found === undefined) return fallback as HclValue;
      if (m.kind === 'map' && !(fallback instanceof HclNull)) return convert(found, unify([typeOf(found), typeOf(fallback as HclValue)]) ?? 'dynamic');
      return found;
    },
  },
  merge: {
    params: [],
    varParam: { name: 'arg', type: 'dynamic', allowNull: true },
    impl: (args) => {
      let result: HclValue | undefined;
      args.forEach((a, i) => {
        if (a instanceof HclNull) return;
        const isMapping = a instanceof HclMap;
        if (!isMapping && !(a instanceof HclSeq && a.kind !== 'set')) throw new FunctionArgError(i, 'must be an object or a tuple');
        if (result !== undefined && (result instanceof HclMap) !== isMapping) throw new FunctionArgError(i, 'cannot merge objects and tuples together');
        result = result === undefined ? a : mergeValues(result, a);
      });
      return result ?? NULL;
    },
  },
  set_intersection: {
    params: [{ name: 'first_set', type: 'dynamic' }],
    varParam: { name: 'other_sets', type: 'dynamic' },
    impl: (sets) => {
      sets.forEach((s, i) => {
        if (!(s instanceof HclSeq)) throw new FunctionArgError(i, 'a set, list or tuple is required');
      });
      const [first, ...others] = sets as HclSeq[];
      const out: HclValue[] = [];
      for (const x of (first as HclSeq).items) {
        if (out.some((y) => valuesEqual(x, y))) continue;
        if (others.every((o) => o.items.some((y) => valuesEqual(x, y)))) out.push(x);
      }
      const elem = unify(out.map(typeOf)) ?? 'dynamic';
      return new HclSeq('set', out, out.every((x) => typesEqual(typeOf(x), elem)) ? elem : 'dynamic');
    },
  },
};
