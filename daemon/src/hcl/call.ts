import type { Expression } from './ast.js';
import { convert, ConversionError } from './convert.js';
import type { EvalContext } from './eval-context.js';
import { FunctionArgError, type HclFunction, type HclParam } from './functions/define.js';
import { NumberRangeError } from './number.js';
import { suggest } from './parse-template.js';
import { startRange } from './start-range.js';
import { HclNull, HclSeq, HclUnknown, UNKNOWN, type HclValue } from './values.js';

type Evaluator = (ctx: EvalContext, expr: Expression) => HclValue;
type CallExpr = Extract<Expression, { kind: 'call' }>;

/**
 * A function call in upstream's order: the expanded final argument, the argument count
 * (before any other argument is evaluated), every argument's value and conversion, then
 * the call, which rejects the first null argument a parameter does not allow.
 */
export function evalCall(ctx: EvalContext, expr: CallExpr, evaluate: Evaluator): HclValue {
  const fn = ctx.fn(expr.name);
  if (!fn) return unknownFunction(ctx, expr);
  // Each argument's source expression and, for expanded elements, its value already computed.
  let args: Array<{ expr: Expression; value?: HclValue }> = expr.args.map((e) => ({ expr: e }));
  const lastExpr = expr.args[expr.args.length - 1];
  if (expr.expandFinal && lastExpr) {
    const before = ctx.diags.length;
    const last = evaluate(ctx, lastExpr);
    if (ctx.diags.length > before || last instanceof HclUnknown) return UNKNOWN;
    if (last instanceof HclNull) return ctx.error('Invalid expanding argument value', 'The expanding argument (indicated by ...) must not be null.', lastExpr.range);
    if (!(last instanceof HclSeq)) return ctx.error('Invalid expanding argument value', 'The expanding argument (indicated by ...) must be of a tuple, list, or set type.', lastExpr.range);
    args = [...args.slice(0, -1), ...last.items.map((value) => ({ expr: lastExpr, value }))];
  }
  const { params, varParam } = fn;
  if (args.length < params.length) {
    const missing = params[args.length] as HclParam;
    const atLeast = varParam ? ' at least' : '';
    return ctx.error('Not enough function arguments', `Function "${expr.name}" expects${atLeast} ${params.length} argument(s). Missing value for "${missing.name}".`, expr.closeParenRange);
  }
  if (!varParam && args.length > params.length) {
    const extra = (args[params.length] as { expr: Expression }).expr;
    // An expanded element stands for the whole expanded expression, as upstream's synthetic literal does.
    const at = extra === lastExpr && expr.expandFinal ? extra.range : startRange(extra);
    return ctx.error('Too many function arguments', `Function "${expr.name}" expects only ${params.length} argument(s).`, at);
  }
  const paramFor = (i: number): HclParam => (params[i] ?? varParam) as HclParam;
  const argRange = (i: number) => {
    const arg = args[i];
    if (!arg) return startRange(expr);
    return arg.value !== undefined ? arg.expr.range : startRange(arg.expr);
  };
  const before = ctx.diags.length;
  const values: HclValue[] = [];
  let unknown = false;
  args.forEach((arg, i) => {
    const v = arg.value ?? evaluate(ctx, arg.expr);
    if (v instanceof HclUnknown) unknown = true;
    try {
      values.push(convert(v, paramFor(i).type));
    } catch (error) {
      if (!(error instanceof ConversionError)) throw error;
      ctx.error('Invalid function argument', `Invalid value for "${paramFor(i).name}" parameter: ${error.message}.`, argRange(i));
      values.push(UNKNOWN);
    }
  });
  if (ctx.diags.length > before || unknown) return UNKNOWN;
  const nullAt = values.findIndex((v, i) => v instanceof HclNull && !paramFor(i).allowNull);
  if (nullAt >= 0) return ctx.error('Invalid function argument', `Invalid value for "${paramFor(nullAt).name}" parameter: argument must not be null.`, argRange(nullAt));
  return callImpl(ctx, expr, fn, values, paramFor, argRange);
}

function callImpl(ctx: EvalContext, expr: CallExpr, fn: HclFunction, values: HclValue[], paramFor: (i: number) => HclParam, argRange: (i: number) => Expression['range']): HclValue {
  try {
    return fn.impl(values);
  } catch (error) {
    if (error instanceof FunctionArgError) {
      return ctx.error('Invalid function argument', `Invalid value for "${paramFor(error.argIndex).name}" parameter: ${error.message}.`, argRange(error.argIndex));
    }
    if (error instanceof NumberRangeError || error instanceof Error) {
      return ctx.error('Error in function call', `Call to function "${expr.name}" failed: ${error.message}.`, startRange(expr));
    }
    throw error;
  }
}

/** Upstream's messages for a name that is not in the table, telling a bad namespace from a bad name in it. */
function unknownFunction(ctx: EvalContext, expr: CallExpr): HclValue {
  const names = ctx.functionNames();
  const sep = expr.name.lastIndexOf('::');
  if (sep >= 0) {
    const namespace = expr.name.slice(0, sep + 2);
    const name = expr.name.slice(sep + 2);
    const inNamespace = names.filter((n) => n.startsWith(namespace));
    if (inNamespace.length === 0) return ctx.error('Call to unknown function', `There are no functions in namespace ${JSON.stringify(namespace)}.`, expr.nameRange);
    const hint = suggest(name, inNamespace.map((n) => n.slice(namespace.length)));
    return ctx.error('Call to unknown function', `There is no function named ${JSON.stringify(name)} in namespace ${namespace}.${hint ? ` Did you mean ${namespace}${hint}?` : ''}`, expr.nameRange);
  }
  const hint = suggest(expr.name, names);
  return ctx.error('Call to unknown function', `There is no function named ${JSON.stringify(expr.name)}.${hint ? ` Did you mean ${JSON.stringify(hint)}?` : ''}`, expr.nameRange);
}
