import type { Traverser } from './ast.js';
import { convert, ConversionError } from './convert.js';
import type { Range } from './diagnostics.js';
import type { EvalContext } from './eval-context.js';
import { HclNumber } from './number.js';
import { HclMap, HclNull, HclSeq, HclUnknown, UNKNOWN, typeName, typeOf, type HclValue } from './values.js';

export function applySteps(ctx: EvalContext, value: HclValue, steps: readonly Traverser[]): HclValue {
  let v = value;
  for (const step of steps) {
    if (v instanceof HclUnknown) return v;
    v = step.kind === 'attr' ? getAttr(ctx, v, step.name, step.range) : index(ctx, v, step.key, step.range);
  }
  return v;
}

/** `.name` with upstream's diagnostics for each kind of value. */
export function getAttr(ctx: EvalContext, obj: HclValue, name: string, range: Range): HclValue {
  if (obj instanceof HclUnknown) return obj;
  if (obj instanceof HclNull) return ctx.error('Attempt to get attribute from null value', 'This value is null, so it does not have any attributes.', range);
  if (obj instanceof HclMap) {
    const v = obj.entries.get(name);
    if (v !== undefined) return v;
    if (obj.kind === 'map') return ctx.error('Missing map element', `This map does not have an element with the key ${JSON.stringify(name)}.`, range);
    // Upstream's attribute errors carry no "did you mean" (only unknown variables and functions do).
    return ctx.error('Unsupported attribute', `This object does not have an attribute named ${JSON.stringify(name)}.`, range);
  }
  if (obj instanceof HclSeq) {
    const elemIsObject = obj.kind !== 'tuple' && typeof obj.elem !== 'string' && obj.elem.kind === 'object';
    if (elemIsObject && obj.kind === 'list') {
      const has = typeof obj.elem !== 'string' && obj.elem.kind === 'object' && obj.elem.attrs.has(name);
      return ctx.error('Unsupported attribute', has
        ? `Can't access attributes on a list of objects. Did you mean to access attribute "${name}" for a specific element of the list, or across all elements of the list?`
        : "Can't access attributes on a list of objects. Did you mean to access an attribute for a specific element of the list, or across all elements of the list?", range);
    }
    if (elemIsObject && obj.kind === 'set') {
      return ctx.error('Unsupported attribute', "Can't access attributes on a set of objects. Did you mean to access an attribute across all elements of the set?", range);
    }
    return ctx.error('Unsupported attribute', 'This value does not have any attributes.', range);
  }
  return ctx.error('Unsupported attribute', `Can't access attributes on a primitive-typed value (${typeName(typeOf(obj))}).`, range);
}

/** `[key]` on lists, tuples, maps and objects, converting the key as upstream does. */
export function index(ctx: EvalContext, coll: HclValue, key: HclValue, range: Range): HclValue {
  if (coll instanceof HclUnknown || key instanceof HclUnknown) return UNKNOWN;
  if (coll instanceof HclNull) return ctx.error('Attempt to index null value', 'This value is null, so it does not have any indices.', range);
  if (key instanceof HclNull) return ctx.error('Invalid index', "Can't use a null value as an indexing key.", range);
  const invalid = (detail: string): HclValue => ctx.error('Invalid index', detail, range);
  const notFound = 'The given key does not identify an element in this collection value';
  if (coll instanceof HclSeq) {
    if (coll.kind === 'set') return invalid("Elements of a set are identified only by their value and don't have any separate index or key to select with, so it's only possible to perform operations across all elements of the set.");
    let k: HclValue;
    try {
      k = convert(key, 'number');
    } catch (error) {
      if (error instanceof ConversionError) return invalid(`${notFound}: ${error.message}.`);
      throw error;
    }
    // Infinities land here too, as upstream's big.Float has no integer for them either.
    const i = (k as HclNumber).toBigInt();
    if (i === undefined) return invalid(`${notFound}: indexing a sequence requires a whole number, but the given index has a fractional part.`);
    if (i < 0n) return invalid(`${notFound}: a negative number is not a valid index for a sequence.`);
    if (coll.items.length === 0) return invalid(`${notFound}: the collection has no elements.`);
    if (i >= BigInt(coll.items.length)) return invalid(`${notFound}: the given index is greater than or equal to the length of the collection.`);
    return coll.items[Number(i)] as HclValue;
  }
  if (coll instanceof HclMap) {
    let k: HclValue;
    try {
      k = convert(key, 'string');
    } catch (error) {
      if (error instanceof ConversionError) return invalid(`${notFound}: ${error.message}.`);
      throw error;
    }
    const v = coll.entries.get(k as string);
    if (v !== undefined) return v;
    const numeric = coll.kind === 'object' && key instanceof HclNumber ? ' An object only supports looking up attributes by name, not by numeric index.' : '';
    return invalid(`${notFound}.${numeric}`);
  }
  return invalid('This value does not have any indices.');
}
