import type { Expression, ForExpression } from './ast.js';
import { convert, ConversionError } from './convert.js';
import type { EvalContext } from './eval-context.js';
import { HclNumber } from './number.js';
import { HclMap, HclNull, HclSeq, HclUnknown, UNKNOWN, sortedKeys, typeName, typeOf, type HclValue } from './values.js';

type Evaluator = (ctx: EvalContext, expr: Expression) => HclValue;

/**
 * `[for ...]` and `{for ...}` in upstream's order: the collection, a first check of the
 * `if` clause with unknown variables (so a badly typed clause is reported once, even
 * for an empty collection), then per element the clause, the key and the value. Like
 * upstream, only the first bad clause or key is reported.
 */
export function evalFor(ctx: EvalContext, expr: ForExpression, evaluate: Evaluator): HclValue {
  const pairs = iterationPairs(ctx, evaluate(ctx, expr.collection), expr);
  if (!pairs) return UNKNOWN;
  if (expr.condition && !precheckCondition(ctx, expr, expr.condition, evaluate)) return UNKNOWN;
  const items: HclValue[] = [];
  const groups = new Map<string, HclValue[]>();
  const single = new Map<string, HclValue>();
  let known = true;
  const fail = (summary: string, detail: string, at: Expression): void => {
    if (known) ctx.error(summary, detail, at.range);
    known = false;
  };
  for (const [k, v] of pairs) {
    const scope = new Map<string, HclValue>();
    if (expr.keyVar !== undefined) scope.set(expr.keyVar, k);
    scope.set(expr.valVar, v);
    ctx.pushScope(scope);
    try {
      if (expr.condition) {
        const include = evaluate(ctx, expr.condition);
        if (include instanceof HclNull) {
          fail("Invalid 'for' condition", "The value of the 'if' clause must not be null.", expr.condition);
          continue;
        }
        if (include instanceof HclUnknown) {
          known = false;
          continue;
        }
        let keep: HclValue;
        try {
          keep = convert(include, 'bool');
        } catch (error) {
          if (!(error instanceof ConversionError)) throw error;
          fail("Invalid 'for' condition", `The 'if' clause value is invalid: ${error.message}.`, expr.condition);
          continue;
        }
        if (keep === false) continue;
      }
      if (!expr.keyExpr) {
        items.push(evaluate(ctx, expr.valExpr));
        continue;
      }
      const key = evaluate(ctx, expr.keyExpr);
      if (key instanceof HclNull) {
        fail('Invalid object key', "Key expression in 'for' expression must not produce a null value.", expr.keyExpr);
        continue;
      }
      if (key instanceof HclUnknown) {
        known = false;
        continue;
      }
      let name: string;
      try {
        name = convert(key, 'string') as string;
      } catch (error) {
        if (!(error instanceof ConversionError)) throw error;
        fail('Invalid object key', `The key expression produced an invalid result: ${error.message}.`, expr.keyExpr);
        continue;
      }
      const value = evaluate(ctx, expr.valExpr);
      if (expr.group) {
        const group = groups.get(name);
        if (group) group.push(value);
        else groups.set(name, [value]);
      } else if (single.has(name)) {
        ctx.error('Duplicate object key', `Two different items produced the key "${name}" in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key.`, expr.keyExpr.range);
      } else single.set(name, value);
    } finally {
      ctx.popScope();
    }
  }
  if (!known) return UNKNOWN;
  if (!expr.keyExpr) return new HclSeq('tuple', items);
  if (expr.group) {
    const entries = new Map<string, HclValue>();
    for (const [k, vs] of groups) entries.set(k, new HclSeq('tuple', vs));
    return new HclMap('object', entries);
  }
  return new HclMap('object', single);
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

/** The `if` clause evaluated once with the iteration variables unknown; false when it is already wrong. */
function precheckCondition(ctx: EvalContext, expr: ForExpression, condition: Expression, evaluate: Evaluator): boolean {
  const scope = new Map<string, HclValue>();
  if (expr.keyVar !== undefined) scope.set(expr.keyVar, UNKNOWN);
  scope.set(expr.valVar, UNKNOWN);
  ctx.pushScope(scope);
  const before = ctx.diags.length;
  let result: HclValue;
  try {
    result = evaluate(ctx, condition);
  } finally {
    ctx.popScope();
  }
  if (result instanceof HclNull) {
    ctx.error('Condition is null', "The value of the 'if' clause must not be null.", condition.range);
    return false;
  }
  try {
    convert(result, 'bool');
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    ctx.error("Invalid 'for' condition", `The 'if' clause value is invalid: ${error.message}.`, condition.range);
    return false;
  }
  return ctx.diags.length === before;
}
