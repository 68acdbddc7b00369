import type { Expression, Range, Traverser } from '../../hcl/index.js';

/** A variable read by an expression: `request.headers.x` is root `request` with its steps. */
export interface VariableRef {
  readonly root: string;
  readonly steps: readonly Traverser[];
  readonly range: Range;
  readonly rootRange: Range;
}

export interface FunctionRef {
  readonly name: string;
  readonly range: Range;
  /** The call's arguments, for checks of literal ones (jwt_sign's label). */
  readonly args: readonly Expression[];
}

export interface ExpressionRefs {
  readonly variables: readonly VariableRef[];
  readonly calls: readonly FunctionRef[];
}

/**
 * The free variables and the function calls of an expression, like upstream's
 * `Expression.Variables()`: names bound by `for` expressions are not free, and a bare
 * object key (`{ a = 1 }`) is a string, not a variable.
 */
export function expressionRefs(expr: Expression): ExpressionRefs {
  if (isConstant(expr)) return NO_REFS;
  const variables: VariableRef[] = [];
  const calls: FunctionRef[] = [];
  walk(expr, [], variables, calls);
  return { variables, calls };
}

/** What a constant reads: shared, since most attributes of a configuration are constants. */
const NO_REFS: ExpressionRefs = Object.freeze({ variables: Object.freeze([]), calls: Object.freeze([]) });

/** A literal, or a quoted string without interpolations or directives. */
function isConstant(e: Expression): boolean {
  if (e.kind === 'literal') return true;
  if (e.kind !== 'template') return false;
  for (const part of e.parts) if (part.kind !== 'literal') return false;
  return true;
}

function walk(e: Expression, locals: readonly string[], vars: VariableRef[], calls: FunctionRef[]): void {
  const go = (x: Expression, scope: readonly string[] = locals): void => walk(x, scope, vars, calls);
  switch (e.kind) {
    case 'literal':
    case 'anonSymbol':
    case 'invalid':
      return;
    case 'template':
      for (const p of e.parts) go(p);
      return;
    case 'templateWrap':
      go(e.wrapped);
      return;
    case 'templateJoin':
      go(e.tuple);
      return;
    case 'scopeTraversal':
      if (!locals.includes(e.root)) vars.push({ root: e.root, steps: e.steps, range: e.range, rootRange: e.rootRange });
      return;
    case 'relativeTraversal':
      go(e.source);
      return;
    case 'call':
      calls.push({ name: e.name, range: e.nameRange, args: e.args });
      for (const a of e.args) go(a);
      return;
    case 'conditional':
      go(e.condition);
      go(e.trueResult);
      go(e.falseResult);
      return;
    case 'binary':
      go(e.lhs);
      go(e.rhs);
      return;
    case 'unary':
      go(e.operand);
      return;
    case 'tuple':
      for (const x of e.exprs) go(x);
      return;
    case 'object':
      for (const item of e.items) {
        // An unparenthesised traversal key is a name (or an "Ambiguous attribute key" error), never a read.
        if (item.forceNonLiteral || (item.keyIsBareName === undefined && item.key.kind !== 'scopeTraversal')) go(item.key);
        go(item.value);
      }
      return;
    case 'for': {
      go(e.collection);
      const inner = [...locals, e.valVar, ...(e.keyVar === undefined ? [] : [e.keyVar])];
      if (e.keyExpr) go(e.keyExpr, inner);
      go(e.valExpr, inner);
      if (e.condition) go(e.condition, inner);
      return;
    }
    case 'index':
      go(e.collection);
      go(e.key);
      return;
    case 'splat':
      go(e.source);
      go(e.each);
      return;
    case 'parens':
      go(e.expr);
      return;
    default: {
      // A new kind of expression must be walked here, or its variables would go unseen.
      const unhandled: never = e;
      throw new Error(`unhandled expression ${JSON.stringify(unhandled)}`);
    }
  }
}

/** The label read by `backend_responses.<label>` or `backend_responses["<label>"]`, if the ref is one. */
export function backendResponseLabel(ref: VariableRef): string | undefined {
  if (ref.root !== 'backend_responses') return undefined;
  const first = ref.steps[0];
  if (!first) return undefined;
  if (first.kind === 'attr') return first.name;
  return typeof first.key === 'string' ? first.key : undefined;
}
