import type { Expression } from './ast.js';
import { convert, ConversionError, unify } from './convert.js';
import { rangeBetween } from './diagnostics.js';
import type { EvalContext } from './eval-context.js';
import { HclNull, HclUnknown, UNKNOWN, typeName, typeOf, typesEqual, type HclType, type HclValue } from './values.js';

type Evaluator = (ctx: EvalContext, expr: Expression) => HclValue;

/**
 * `cond ? a : b` as upstream evaluates it: both results first (their errors count only
 * for the branch taken), the result type from unifying theirs (a `null` literal takes
 * the other side's type), then the condition, then the chosen value converted.
 */
export function evalConditional(ctx: EvalContext, expr: Extract<Expression, { kind: 'conditional' }>, evaluate: Evaluator): HclValue {
  const t = ctx.isolated(() => evaluate(ctx, expr.trueResult));
  const f = ctx.isolated(() => evaluate(ctx, expr.falseResult));
  const trueType = typeOf(t.result);
  const falseType = typeOf(f.result);
  let resultType: HclType | undefined;
  if (isUntypedNull(t.result)) resultType = falseType;
  else if (isUntypedNull(f.result)) resultType = trueType;
  else if (trueType === 'dynamic' || falseType === 'dynamic') resultType = 'dynamic';
  else resultType = unify([trueType, falseType]);
  if (resultType === undefined) {
    return ctx.error(
      'Inconsistent conditional result types',
      `The true and false result expressions must have consistent types. ${describeTypeMismatch(trueType, falseType)}.`,
      rangeBetween(expr.trueResult.range, expr.falseResult.range),
    );
  }
  const cond = evaluate(ctx, expr.condition);
  if (cond instanceof HclNull) {
    return ctx.error('Null condition', 'The condition value is null. Conditions must either be true or false.', expr.condition.range);
  }
  if (cond instanceof HclUnknown) return UNKNOWN;
  let pick: boolean;
  try {
    pick = convert(cond, 'bool') as boolean;
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    return ctx.error('Incorrect condition type', 'The condition expression must be of type bool.', expr.condition.range);
  }
  const chosen = pick ? t : f;
  ctx.diags.push(...chosen.diags);
  if (chosen.result instanceof HclUnknown) return UNKNOWN;
  try {
    return convert(chosen.result, resultType);
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    const which = pick ? expr.trueResult : expr.falseResult;
    return ctx.error('Inconsistent conditional result types', `The ${pick ? 'true' : 'false'} result value has the wrong type: ${error.message}.`, which.range);
  }
}

/** A `null` literal (or variable) with no type of its own, which converts to anything. */
function isUntypedNull(v: HclValue): boolean {
  return v instanceof HclNull && v.type === 'dynamic';
}

/** Upstream's explanation of why two result types do not unify, looking inside structural types. */
export function describeTypeMismatch(a: HclType, b: HclType): string {
  if (typeof a !== 'string' && typeof b !== 'string') {
    if (a.kind === 'object' && b.kind === 'object') {
      const aNames = [...a.attrs.keys()].sort();
      for (const name of aNames) {
        const bt = b.attrs.get(name);
        if (bt === undefined) return `The 'true' value includes object attribute ${JSON.stringify(name)}, which is absent in the 'false' value`;
        const at = a.attrs.get(name) as HclType;
        if (!typesEqual(at, bt)) return `Type mismatch for object attribute ${JSON.stringify(name)}: ${describeTypeMismatch(at, bt)}`;
      }
      for (const name of [...b.attrs.keys()].sort()) {
        if (!a.attrs.has(name)) return `The 'false' value includes object attribute ${JSON.stringify(name)}, which is absent in the 'true' value`;
      }
    } else if (a.kind === 'tuple' && b.kind === 'tuple') {
      if (a.elems.length !== b.elems.length) return `The 'true' tuple has length ${a.elems.length}, but the 'false' tuple has length ${b.elems.length}`;
      for (let i = 0; i < a.elems.length; i++) {
        const at = a.elems[i] as HclType;
        const bt = b.elems[i] as HclType;
        if (!typesEqual(at, bt)) return `Type mismatch for tuple element ${i}: ${describeTypeMismatch(at, bt)}`;
      }
    } else if (a.kind === b.kind && (a.kind === 'list' || a.kind === 'set' || a.kind === 'map')) {
      const ae = (a as { elem: HclType }).elem;
      const be = (b as { elem: HclType }).elem;
      const structural = (t: HclType): string | undefined => (typeof t === 'string' ? undefined : t.kind);
      const ak = structural(ae);
      if ((ak === 'object' || ak === 'tuple') && ak === structural(be)) return `Mismatched ${a.kind} element types: ${describeTypeMismatch(ae, be)}`;
    }
  }
  const aName = typeName(a);
  const bName = typeName(b);
  if (aName === bName) return "At least one deeply-nested attribute or element is not compatible across both the 'true' and the 'false' value";
  return `The 'true' value is ${aName}, but the 'false' value is ${bName}`;
}
