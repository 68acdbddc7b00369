import type { Expression, ForExpression } from './ast.js';
import { evalCall } from './call.js';
import { evalConditional } from './conditional.js';
import { convert, ConversionError, unify } from './convert.js';
import type { EvalContext } from './eval-context.js';
import { HclNumber } from './number.js';
import { evalBinary, evalUnary } from './operations.js';
import { suggest } from './parse-template.js';
import { applySteps, index } from './traversal.js';
import {
  HclMap, HclNull, HclSeq, HclUnknown, UNKNOWN, sortedKeys, typeName, typeOf, type HclValue,
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
      return evalFor(ctx, expr);
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
  const tuple = evalFor(ctx, forExpr);
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

/** The (key, value) pairs a `for` visits: indexes for sequences, sorted keys for mappings, values for sets. */
function iterationPairs(ctx: EvalContext, coll: HclValue, expr: ForExpression): Array<[HclValue, HclValue]> | undefined {
  if (coll instanceof HclUnknown) return undefined;
  if (coll instanceof HclNull) {
    ctx.error('Iteration over null value', "A null value cannot be used as the collection in a 'for' expression.", expr.collection.range);
    return undefined;
  }
  if (coll instanceof HclSeq) {
    if (coll.kind === 'set') return coll.items.map((v) => [v, v]);
    return coll.items.map((v, i) => [HclNumber.of(BigInt(i), 0), v]);
  }
  if (coll instanceof HclMap) return sortedKeys(coll).map((k) => [k, coll.entries.get(k) as HclValue]);
  ctx.error('Iteration over non-iterable value', `A value of type ${typeName(typeOf(coll))} cannot be used as the collection in a 'for' expression.`, expr.collection.range);
  return undefined;
}

function evalFor(ctx: EvalContext, expr: ForExpression): HclValue {
  const pairs = iterationPairs(ctx, evalExpr(ctx, expr.collection), expr);
  if (!pairs) return UNKNOWN;
  const items: HclValue[] = [];
  const groups = new Map<string, HclValue[]>();
  const single = new Map<string, HclValue>();
  let unknown = false;
  for (const [k, v] of pairs) {
    const scope = new Map<string, HclValue>();
    if (expr.keyVar !== undefined) scope.set(expr.keyVar, k);
    scope.set(expr.valVar, v);
    ctx.pushScope(scope);
    try {
      if (expr.condition) {
        const include = evalExpr(ctx, expr.condition);
        if (include instanceof HclUnknown) {
          unknown = true;
          continue;
        }
        if (include instanceof HclNull) {
          ctx.error("Invalid 'for' condition", "The value of the 'if' clause must not be null.", expr.condition.range);
          unknown = true;
          continue;
        }
        let keep: HclValue;
        try {
          keep = convert(include, 'bool');
        } catch (error) {
          if (!(error instanceof ConversionError)) throw error;
          ctx.error("Invalid 'for' condition", `The 'if' clause value is invalid: ${error.message}.`, expr.condition.range);
          unknown = true;
          continue;
        }
        if (keep === false) continue;
      }
      if (!expr.keyExpr) {
        items.push(evalExpr(ctx, expr.valExpr));
        continue;
      }
      const key = evalExpr(ctx, expr.keyExpr);
      const value = evalExpr(ctx, expr.valExpr);
      if (key instanceof HclUnknown) {
        unknown = true;
        continue;
      }
      if (key instanceof HclNull) {
        ctx.error('Invalid object key', "Key expression in 'for' expression must not produce a null value.", expr.keyExpr.range);
        unknown = true;
        continue;
      }
      let name: string;
      try {
        name = convert(key, 'string') as string;
      } catch (error) {
        if (!(error instanceof ConversionError)) throw error;
        ctx.error('Invalid object key', `The key expression produced an invalid result: ${error.message}.`, expr.keyExpr.range);
        unknown = true;
        continue;
      }
      if (expr.group) {
        const group = groups.get(name);
        if (group) group.push(value);
        else groups.set(name, [value]);
      } else if (single.has(name)) {
        ctx.error('Duplicate object key', `Two different items produced the key "${name}" in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key.`, expr.keyExpr.range);
        unknown = true;
      } else single.set(name, value);
    } finally {
      ctx.popScope();
    }
  }
  if (unknown) return UNKNOWN;
  if (!expr.keyExpr) return new HclSeq('tuple', items);
  if (expr.group) {
    const entries = new Map<string, HclValue>();
    for (const [k, vs] of groups) entries.set(k, new HclSeq('tuple', vs));
    return new HclMap('object', entries);
  }
  return new HclMap('object', single);
}

function evalSplat(ctx: EvalContext, expr: Extract<Expression, { kind: 'splat' }>): HclValue {
  let source = evalExpr(ctx, expr.source);
  if (source instanceof HclUnknown) return UNKNOWN;
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
  if (source.kind === 'list') {
    const elem = unify(results.map(typeOf)) ?? 'dynamic';
    try {
      return new HclSeq('list', results.map((r) => convert(r, elem)), elem);
    } catch {
      return new HclSeq('tuple', results);
    }
  }
  return new HclSeq('tuple', results);
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

