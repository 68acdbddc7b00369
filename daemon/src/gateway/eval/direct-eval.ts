import { fromPlain, toPlain, type Expression, type PlainValue } from '../../hcl/index.js';
import { readTraversal, type RootResolver } from './lenient-traversals.js';

/**
 * The commonest per-request expressions, evaluated without the HCL evaluator: a variable
 * (`request.headers.x`), and an object whose keys are names or quoted strings and whose values
 * are variables or constants (`{ x-request = request.id, x-a = "1" }`, as header and query
 * modifiers are written). The evaluator rewrites the expression with the variables' values,
 * evaluates it to HCL values and converts them back; here the plain values are read and the
 * object built in one pass, to the same result: keys in their order (a repeated key keeps its
 * first place and its last value), a missing variable null, a value that is not a string,
 * boolean or null converted as the evaluator converts it (so it fails where it would).
 * Anything else (calls, templates with interpolations, operators, `for`) is left to the
 * evaluator: `directEvaluator` gives null.
 */
export type DirectEvaluator = (resolver: RootResolver) => PlainValue;

const compiled = new WeakMap<Expression, DirectEvaluator | null>();

/** The direct evaluator of `expr`, made once per expression of the configuration; null when the evaluator must run. */
export function directEvaluator(expr: Expression): DirectEvaluator | null {
  let direct = compiled.get(expr);
  if (direct === undefined) {
    direct = compile(expr);
    compiled.set(expr, direct);
  }
  return direct;
}

type Part = (resolver: RootResolver) => PlainValue;

function compile(expr: Expression): DirectEvaluator | null {
  if (expr.kind === 'scopeTraversal') return variable(expr);
  if (expr.kind !== 'object') return null;
  const keys: string[] = [];
  const values: Part[] = [];
  for (const item of expr.items) {
    const key = item.keyIsBareName ?? (item.forceNonLiteral ? null : constantString(item.key));
    const value = item.value.kind === 'scopeTraversal' ? variable(item.value) : constantPart(item.value);
    if (key === null || value === null) return null;
    keys.push(key);
    values.push(value);
  }
  return (resolver) => {
    const out: { [key: string]: PlainValue } = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const value = values[i]!(resolver);
      // Defined, not assigned, so a key named "__proto__" stays an ordinary key (as toPlain makes it).
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
    }
    return out;
  };
}

function variable(expr: Extract<Expression, { kind: 'scopeTraversal' }>): Part {
  const { root, steps } = expr;
  return (resolver) => plainOf(readTraversal(resolver, root, steps));
}

/** A variable's value as the evaluator gives it back: through HCL's values and out again. */
function plainOf(value: unknown): PlainValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  return toPlain(fromPlain(value));
}

/** A string, boolean, number or null constant (an object or tuple constant is left to the evaluator: each request gets its own). */
function constantPart(expr: Expression): Part | null {
  const text = constantString(expr);
  if (text !== null) return () => text;
  if (expr.kind !== 'literal') return null;
  const value = toPlain(expr.value);
  if (value !== null && typeof value === 'object') return null;
  return () => value;
}

/** The text of a string constant: a literal, or a quoted string without interpolations. */
function constantString(expr: Expression): string | null {
  if (expr.kind === 'literal') return typeof expr.value === 'string' ? expr.value : null;
  if (expr.kind !== 'template') return null;
  let text = '';
  for (const part of expr.parts) {
    if (part.kind !== 'literal' || typeof part.value !== 'string') return null;
    text += part.value;
  }
  return text;
}
