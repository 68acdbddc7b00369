import type { Expression, ForExpression } from './ast.js';
import { evalCall } from './call.js';
import { evalConditional } from './conditional.js';
import { evalFor } from './eval-for.js';
import { convert, ConversionError } from './convert.js';
import type { EvalContext } from './eval-context.js';
import { evalBinary, evalUnary } from './operations.js';
import { suggest } from './parse-template.js';
import { applySteps, index } from './traversal.js';
import {
  HclMap, HclNull, HclSeq, HclUnknown, UNKNOWN, typeOf, typesEqual, type HclValue,
} from './values.js';

/** Evaluates one expression node; errors go to `ctx.diags` and yield UNKNOWN so evaluation continues. */
export function evalExpr(ctx: EvalContext, expr: Expression): HclValue {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'parens':
      return evalExpr(ctx, expr.expr);
    case 'template':
      return evalTemplate(ctx, expr.parts);
    case 'templateWrap':
      return evalExpr(ctx, expr.wrapped);
    case 'templateJoin':
      return evalTemplateJoin(ctx, expr.tuple);
    case 'scopeTraversal': {
      const root = ctx.lookup(expr.root, expr.rootRange);
      if (root === undefined) {
        const hint = suggest(expr.root, ctx.variableNames());
        return ctx.error('Unknown variable', `There is no variable named "${expr.root}".${hint ? ` Did you mean "${hint}"?` : ''}`, expr.rootRange);
      }
      return applySteps(ctx, root, expr.steps);
    }
    case 'relativeTraversal':
      return applySteps(ctx, evalExpr(ctx, expr.source), expr.steps);
    case 'index':
      return index(ctx, evalExpr(ctx, expr.collection), evalExpr(ctx, expr.key), expr.bracketRange);
    case 'call':
      return evalCall(ctx, expr, evalExpr);
    case 'conditional':
      return evalConditional(ctx, expr, evalExpr);
    case 'binary':
      return evalBinary(ctx, expr, evalExpr);
    case 'unary':
      return evalUnary(ctx, expr, evalExpr);
    case 'tuple':
      return new HclSeq('tuple', expr.exprs.map((e) => evalExpr(ctx, e)));
    case 'object':
      return evalObject(ctx, expr);
    case 'for':
      return evalFor(ctx, expr, evalExpr);
    case 'splat':
      return evalSplat(ctx, expr);
    case 'anonSymbol':
      return ctx.splatItems.get(expr) ?? UNKNOWN;
    case 'invalid':
      return UNKNOWN;
  }
}

function evalTemplate(ctx: EvalContext, parts: Expression[]): HclValue {
  let out = '';
  let unknown = false;
  for (const part of parts) {
    if (part.kind === 'literal' && typeof part.value === 'string') {
      out += part.value;
      continue;
    }
    const v = evalExpr(ctx, part);
    if (v instanceof HclUnknown) {
      unknown = true;
      continue;
    }
    if (v instanceof HclNull) {
      ctx.error('Invalid template interpolation value', 'The expression result is null. Cannot include a null value in a string template.', part.range);
      unknown = true;
      continue;
    }
    try {
      out += convert(v, 'string') as string;
    } catch (error) {
      if (!(error instanceof ConversionError)) throw error;
      ctx.error('Invalid template interpolation value', `Cannot include the given value in a string template: ${error.message}.`, part.range);
      unknown = true;
    }
  }
  return unknown ? UNKNOWN : out;
}

function evalTemplateJoin(ctx: EvalContext, forExpr: ForExpression): HclValue {
  const tuple = evalFor(ctx, forExpr, evalExpr);
  if (!(tuple instanceof HclSeq)) return UNKNOWN;
  let out = '';
  for (const item of tuple.items) {
    if (item instanceof HclUnknown) return UNKNOWN;
    if (item instanceof HclNull) return ctx.error('Invalid template interpolation value', 'An iteration result is null. Cannot include a null value in a string template.', forExpr.range);
    out += convert(item, 'string') as string;
  }
  return out;
}

function evalObject(ctx: EvalContext, expr: Extract<Expression, { kind: 'object' }>): HclValue {
  const entries = new Map<string, HclValue>();
  let unknown = false;
  for (const item of expr.items) {
    let key: HclValue;
    if (item.keyIsBareName !== undefined) key = item.keyIsBareName;
    else if (!item.forceNonLiteral && item.key.kind === 'scopeTraversal' && item.key.steps.length > 0) {
      ctx.error('Ambiguous attribute key', "If this expression is intended to be a reference, wrap it in parentheses. If it's instead intended as a literal name containing periods, wrap it in quotes to create a string literal.", item.key.range);
      unknown = true;
      continue;
    } else key = evalExpr(ctx, item.key);
    const value = evalExpr(ctx, item.value);
    if (key instanceof HclUnknown) {
      unknown = true;
      continue;
    }
    if (key instanceof HclNull) {
      ctx.error('Null value as key', "Can't use a null value as a key.", item.value.range);
      unknown = true;
      continue;
    }
    try {
      entries.set(convert(key, 'string') as string, value);
    } catch (error) {
      if (!(error instanceof ConversionError)) throw error;
      ctx.error('Incorrect key type', `Can't use this value as a key: ${error.message}.`, item.key.range);
      unknown = true;
    }
  }
  return unknown ? UNKNOWN : new HclMap('object', entries);
}

function evalSplat(ctx: EvalContext, expr: Extract<Expression, { kind: 'splat' }>): HclValue {
  let source = evalExpr(ctx, expr.source);
  if (source instanceof HclUnknown) {
    // Upstream still evaluates the rest of the traversal (with no element) for its own errors.
    evalExpr(ctx, expr.each);
    return UNKNOWN;
  }
  const isSeq = source instanceof HclSeq || (source instanceof HclNull && typeof source.type !== 'string' && ['list', 'set', 'tuple'].includes(source.type.kind));
  if (source instanceof HclNull) {
    // Splatting a null that is not a typed sequence yields an empty tuple, so `x.*` turns "maybe a value" into a list.
    if (!isSeq) return new HclSeq('tuple', []);
    return ctx.error('Splat of null value', 'Splat expressions (with the * symbol) cannot be applied to null sequences.', expr.source.range);
  }
  if (!(source instanceof HclSeq)) source = new HclSeq('tuple', [source]);
  const anon = findAnon(expr.each);
  const results: HclValue[] = [];
  let unknown = false;
  for (const item of source.items) {
    if (anon) ctx.splatItems.set(anon, item);
    const v = evalExpr(ctx, expr.each);
    if (v instanceof HclUnknown) unknown = true;
    results.push(v);
  }
  if (anon) ctx.splatItems.delete(anon);
  if (unknown) return UNKNOWN;
  if (source.kind === 'tuple') return new HclSeq('tuple', results);
  // Lists and sets give a list, whose elements must all have the same type.
  const first = results[0];
  if (first === undefined) return new HclSeq('list', [], 'dynamic');
  const elem = typeOf(first);
  if (!results.every((r) => typesEqual(typeOf(r), elem))) {
    return ctx.error(
      'Invalid nested splat expressions',
      "The second level of splat expression produced elements of different types, so it isn't possible to construct a valid list to represent the top-level result.\n\nConsider using a for expression instead, to produce a tuple-typed result which can therefore have non-homogenous element types.",
      expr.each.range,
    );
  }
  return new HclSeq('list', results, elem);
}

/** The anonymous symbol a splat's `each` expression starts from. */
function findAnon(e: Expression): Expression | undefined {
  let cur: Expression = e;
  for (;;) {
    if (cur.kind === 'anonSymbol') return cur;
    if (cur.kind === 'relativeTraversal') cur = cur.source;
    else if (cur.kind === 'index') cur = cur.collection;
    else if (cur.kind === 'splat') cur = cur.source;
    else return undefined;
  }
}

