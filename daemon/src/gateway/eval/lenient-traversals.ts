import { fromPlain, HclNumber, type Expression, type HclValue, type Traverser } from '../../hcl/index.js';

/** What `resolveAttribute` answers for a root it reads only whole: then `resolve(root)` is walked. */
export const WHOLE: unique symbol = Symbol('read the root whole');

/** Where the variables' values come from. */
export interface RootResolver {
  /** The plain value of a root variable (`request`, `env`, ...), or undefined when the request has none. */
  resolve(root: string): unknown;
  /**
   * `root.name` alone, for a root that is costly to build whole (`request`: its headers,
   * query, cookies, body...), or WHOLE when this resolver does not read `root` by attribute.
   */
  resolveAttribute?(root: string, name: string): unknown;
}

/**
 * Replaces every variable read with its value, a missing attribute, key or index reading as
 * null — as the peer does (`request.headers.x` is null when the header is absent), so
 * `default(request.query.page[0], "1")` works. Names bound by `for` expressions stay
 * variables for the evaluator.
 */
export function resolveTraversals(expr: Expression, resolver: RootResolver): Expression {
  return rewrite(expr, [], resolver);
}

function rewrite(e: Expression, locals: readonly string[], resolver: RootResolver): Expression {
  const go = (x: Expression, scope: readonly string[] = locals): Expression => rewrite(x, scope, resolver);
  switch (e.kind) {
    case 'literal':
    case 'anonSymbol':
    case 'invalid':
      return e;
    case 'scopeTraversal': {
      if (locals.includes(e.root)) return e;
      const value: HclValue = fromPlain(readTraversal(resolver, e.root, e.steps));
      return { kind: 'literal', value, range: e.range };
    }
    case 'template':
      return { ...e, parts: e.parts.map((p) => go(p)) };
    case 'templateWrap':
      return { ...e, wrapped: go(e.wrapped) };
    case 'templateJoin':
      return { ...e, tuple: go(e.tuple) as typeof e.tuple };
    case 'relativeTraversal':
      return { ...e, source: go(e.source) };
    case 'call':
      return { ...e, args: e.args.map((a) => go(a)) };
    case 'conditional':
      return { ...e, condition: go(e.condition), trueResult: go(e.trueResult), falseResult: go(e.falseResult) };
    case 'binary':
      return { ...e, lhs: go(e.lhs), rhs: go(e.rhs) };
    case 'unary':
      return { ...e, operand: go(e.operand) };
    case 'tuple':
      return { ...e, exprs: e.exprs.map((x) => go(x)) };
    case 'object':
      return {
        ...e,
        items: e.items.map((item) => ({
          ...item,
          // A bare-name key is a string, not a read (see config/expr-refs.ts).
          key: item.forceNonLiteral || (item.keyIsBareName === undefined && item.key.kind !== 'scopeTraversal') ? go(item.key) : item.key,
          value: go(item.value),
        })),
      };
    case 'for': {
      const inner = [...locals, e.valVar, ...(e.keyVar === undefined ? [] : [e.keyVar])];
      return {
        ...e,
        collection: go(e.collection),
        keyExpr: e.keyExpr ? go(e.keyExpr, inner) : undefined,
        valExpr: go(e.valExpr, inner),
        condition: e.condition ? go(e.condition, inner) : undefined,
      };
    }
    case 'index':
      return { ...e, collection: go(e.collection), key: go(e.key) };
    case 'splat':
      return { ...e, source: go(e.source), each: go(e.each) };
    case 'parens':
      return { ...e, expr: go(e.expr) };
    default: {
      const unhandled: never = e;
      throw new Error(`unhandled expression ${JSON.stringify(unhandled)}`);
    }
  }
}

/** The name a `.name` or `["name"]` step reads; undefined for an index by number or no step. */
export function stepName(step: Traverser | undefined): string | undefined {
  if (!step) return undefined;
  if (step.kind === 'attr') return step.name;
  return typeof step.key === 'string' ? step.key : undefined;
}

/** A variable's value: its first step read by attribute where the resolver can, the rest walked. */
export function readTraversal(resolver: RootResolver, root: string, steps: readonly Traverser[]): unknown {
  if (resolver.resolveAttribute !== undefined) {
    const name = stepName(steps[0]);
    if (name !== undefined) {
      const value = resolver.resolveAttribute(root, name);
      if (value !== WHOLE) return walkSteps(value, steps, 1);
    }
  }
  return walkSteps(resolver.resolve(root), steps);
}

/** Follows `.name` and `[key]` steps (from `from` on) through plain data (objects, Maps, arrays); anything missing is null. */
export function walkSteps(root: unknown, steps: readonly Traverser[], from = 0): unknown {
  let v: unknown = root === undefined ? null : root;
  for (let i = from; i < steps.length; i++) {
    const step = steps[i]!;
    if (v === null || v === undefined) return null;
    const key = step.kind === 'attr' ? step.name : step.key;
    v = child(v, key);
  }
  return v === undefined ? null : v;
}

function child(v: unknown, key: unknown): unknown {
  if (Array.isArray(v)) {
    const i = key instanceof HclNumber ? key.toJs() : typeof key === 'string' ? Number(key) : NaN;
    return Number.isInteger(i) && i >= 0 && i < v.length ? v[i] : null;
  }
  const name = key instanceof HclNumber ? String(key.toJs()) : typeof key === 'string' ? key : null;
  if (name === null) return null;
  if (v instanceof Map) return v.has(name) ? v.get(name) : null;
  if (typeof v === 'object' && v !== null) return Object.prototype.hasOwnProperty.call(v, name) ? (v as Record<string, unknown>)[name] : null;
  return null;
}
