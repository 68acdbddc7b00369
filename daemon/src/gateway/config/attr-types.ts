import type { PlainValue } from '../../hcl/index.js';
import type { AttrType } from './schema.js';
import { parseGoDuration, parseSize } from './units.js';

/**
 * `type`: the value has the wrong type (upstream's "Incorrect attribute value type");
 * `value`: right type, unusable value (a duration without unit, ...).
 */
export type TypeCheck = { ok: true; value: unknown } | { ok: false; kind: 'type' | 'value'; problem: string };

const ok = (value: unknown): TypeCheck => ({ ok: true, value });
const wrongType = (problem: string): TypeCheck => ({ ok: false, kind: 'type', problem });
const badValue = (problem: string): TypeCheck => ({ ok: false, kind: 'value', problem });

/**
 * Checks and converts a non-null evaluated value to an attribute's type with go-cty's
 * conversion rules (numbers and bools convert to strings, numeric strings to numbers, ...)
 * and its messages ("string required", "a number is required"); element problems are
 * prefixed with their path as Terraform prints them ("element 1: string required").
 */
export function checkType(value: PlainValue, type: AttrType): TypeCheck {
  switch (type) {
    case 'any':
      return ok(value);
    case 'string':
      return toStringValue(value);
    case 'bool':
      return toBool(value);
    case 'number':
      return toNumber(value);
    case 'integer': {
      const n = toNumber(value);
      if (n.ok && !Number.isInteger(n.value)) return wrongType('a whole number is required');
      return n;
    }
    case 'status': {
      const n = checkType(value, 'integer');
      // A 1xx is no final answer (a client would wait for one, or switch protocols on 101), and
      // Node refuses to write anything outside 100-999: an answer must end the exchange.
      if (n.ok && ((n.value as number) < 200 || (n.value as number) > 599)) return badValue(`the status of an answer must be from 200 to 599, got ${n.value as number}`);
      return n;
    }
    case 'duration': {
      const text = toStringValue(value);
      if (!text.ok) return text;
      const ms = parseGoDuration(text.value as string);
      if (typeof ms === 'string') return badValue(ms);
      return ms < 0 ? badValue(`a duration must not be negative, got ${JSON.stringify(text.value)}`) : ok(ms);
    }
    case 'size': {
      const text = toStringValue(value);
      if (!text.ok) return text;
      const bytes = parseSize(text.value as string);
      return typeof bytes === 'string' ? badValue(bytes) : ok(bytes);
    }
    case 'stringList':
      return listOf(value, 'list of string required', toStringValue);
    case 'numberList':
      return listOf(value, 'list of number required', toNumber);
    case 'stringOrList':
      if (!Array.isArray(value)) {
        const one = toStringValue(value);
        return one.ok ? ok([one.value]) : wrongType('string or list of string required');
      }
      return listOf(value, 'string or list of string required', toStringValue);
    case 'object':
      return isObject(value) ? ok(value) : wrongType('object required');
    case 'stringMap':
      return mapOf(value, 'map of string required', toStringValue);
    case 'modifierMap':
      return mapOf(value, 'object required', toModifierValue);
  }
}

function isObject(v: PlainValue): v is { [key: string]: PlainValue } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function toStringValue(v: PlainValue): TypeCheck {
  if (typeof v === 'string') return ok(v);
  if (typeof v === 'number' || typeof v === 'boolean') return ok(String(v));
  return wrongType('string required');
}

function toBool(v: PlainValue): TypeCheck {
  if (typeof v === 'boolean') return ok(v);
  if (typeof v === 'string') {
    if (v === 'true' || v === '1') return ok(true);
    if (v === 'false' || v === '0') return ok(false);
    return wrongType('a bool is required');
  }
  return wrongType('bool required');
}

function toNumber(v: PlainValue): TypeCheck {
  if (typeof v === 'number') return ok(v);
  if (typeof v === 'string') {
    const n = v.trim() === '' ? NaN : Number(v);
    return Number.isFinite(n) ? ok(n) : wrongType('a number is required');
  }
  return wrongType('number required');
}

function toModifierValue(v: PlainValue): TypeCheck {
  if (v === null) return ok(null);
  if (Array.isArray(v)) return listOf(v, 'string or list of string required', toStringValue);
  const one = toStringValue(v);
  return one.ok ? one : wrongType('string, list of string or null required');
}

function listOf(v: PlainValue, required: string, element: (x: PlainValue) => TypeCheck): TypeCheck {
  if (!Array.isArray(v)) return wrongType(required);
  const out: unknown[] = [];
  for (const [i, x] of v.entries()) {
    const checked = element(x);
    if (!checked.ok) return { ...checked, problem: `element ${i}: ${checked.problem}` };
    out.push(checked.value);
  }
  return ok(out);
}

function mapOf(v: PlainValue, required: string, element: (x: PlainValue) => TypeCheck): TypeCheck {
  if (!isObject(v)) return wrongType(required);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const checked = element(x);
    if (!checked.ok) return { ...checked, problem: `element ${JSON.stringify(k)}: ${checked.problem}` };
    // `__proto__` as a key is data, not the object's prototype; every other key is a plain store
    // (defineProperty for each key cost about a microsecond a request on a header map).
    if (k === '__proto__') Object.defineProperty(out, k, { value: checked.value, enumerable: true, writable: true, configurable: true });
    else out[k] = checked.value;
  }
  return ok(out);
}
