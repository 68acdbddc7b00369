import type { Expression } from './ast.js';
import { convert, ConversionError } from './convert.js';
import { rangeBetween } from './diagnostics.js';
import type { EvalContext } from './eval-context.js';
import { FunctionArgError, type HclParam } from './functions/define.js';
import { NumberRangeError } from './number.js';
import { suggest } from './parse-template.js';
import { HclNull, HclSeq, HclUnknown, UNKNOWN, type HclValue } from './values.js';

type Evaluator = (ctx: EvalContext, expr: Expression) => HclValue;

/** A function call, with upstream's argument-count, conversion and null checks and messages. */
export function evalCall(ctx: EvalContext, expr: Extract<Expression, { kind: 'call' }>, evaluate: Evaluator): HclValue {
  const fn = Object.prototype.hasOwnProperty.call(ctx.functions, expr.name) ? ctx.functions[expr.name] : undefined;
  if (!fn) {
    const hint = suggest(expr.name, Object.keys(ctx.functions));
    return ctx.error('Call to unknown function', `There is no function named "${expr.name}".${hint ? ` Did you mean "${hint}"?` : ''}`, expr.nameRange);
  }
  const argExprs = expr.args;
  let values = argExprs.map((a) => evaluate(ctx, a));
  // Which source expression each argument came from, for error positions after expansion.
  let sources: Expression[] = [...argExprs];
  if (expr.expandFinal && argExprs.length > 0) {
    const lastExpr = argExprs[argExprs.length - 1] as Expression;
    const last = values[values.length - 1] as HclValue;
    if (last instanceof HclUnknown) return UNKNOWN;
    if (last instanceof HclNull) return ctx.error('Invalid expanding argument value', 'The expanding argument (indicated by ...) must not be null.', lastExpr.range);
    if (!(last instanceof HclSeq)) return ctx.error('Invalid expanding argument value', 'The expanding argument (indicated by ...) must be of a tuple, list, or set type.', lastExpr.range);
    values = [...values.slice(0, -1), ...last.items];
    sources = [...sources.slice(0, -1), ...last.items.map(() => lastExpr)];
  }
  const { params, varParam } = fn;
  if (values.length < params.length) {
    const missing = params[values.length] as HclParam;
    return ctx.error('Not enough function arguments', `Function "${expr.name}" expects ${params.length} argument(s). Missing value for "${missing.name}".`, expr.closeParenRange);
  }
  if (!varParam && values.length > params.length) {
    const extra = sources[params.length] as Expression;
    return ctx.error('Too many function arguments', `Function "${expr.name}" expects only ${params.length} argument(s).`, extra.range);
  }
  const paramFor = (i: number): HclParam => (params[i] ?? varParam) as HclParam;
  const args: HclValue[] = [];
  let failed = false;
  values.forEach((v, i) => {
    const param = paramFor(i);
    const src = sources[i] as Expression;
    if (v instanceof HclUnknown) {
      failed = true;
      return;
    }
    if (v instanceof HclNull && !param.allowNull) {
      ctx.error('Invalid function argument', `Invalid value for "${param.name}" parameter: argument must not be null.`, src.range);
      failed = true;
      return;
    }
    try {
      args.push(convert(v, param.type));
    } catch (error) {
      if (!(error instanceof ConversionError)) throw error;
      ctx.error('Invalid function argument', `Invalid value for "${param.name}" parameter: ${error.message}.`, src.range);
      failed = true;
    }
  });
  if (failed) return UNKNOWN;
  try {
    return fn.impl(args);
  } catch (error) {
    if (error instanceof FunctionArgError) {
      const src = sources[error.argIndex] ?? expr;
      return ctx.error('Invalid function argument', `Invalid value for "${paramFor(error.argIndex).name}" parameter: ${error.message}.`, src.range);
    }
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof NumberRangeError || error instanceof Error) {
      return ctx.error('Error in function call', `Call to function "${expr.name}" failed: ${message}.`, rangeBetween(expr.nameRange, expr.closeParenRange));
    }
    throw error;
  }
}
