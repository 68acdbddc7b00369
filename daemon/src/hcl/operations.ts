import type { BinaryOperator, Expression } from './ast.js';
import { convert, ConversionError } from './convert.js';
import { hasErrors, type Diagnostic } from './diagnostics.js';
import type { EvalContext } from './eval-context.js';
import { HclNumber, NumberRangeError } from './number.js';
import { HclNull, HclUnknown, UNKNOWN, valuesEqual, type HclType, type HclValue } from './values.js';

type Evaluator = (ctx: EvalContext, expr: Expression) => HclValue;

const OPERAND_TYPE: Record<BinaryOperator, HclType> = {
  '||': 'bool', '&&': 'bool', '==': 'dynamic', '!=': 'dynamic',
  '<': 'number', '>': 'number', '<=': 'number', '>=': 'number',
  '+': 'number', '-': 'number', '*': 'number', '/': 'number', '%': 'number',
};

/**
 * A binary operation as upstream evaluates it: both operands are always evaluated and
 * converted (a wrongly typed operand is an error even where && or || would not need it);
 * then && and || decide from one side where they can, keeping only that side's errors.
 */
export function evalBinary(ctx: EvalContext, expr: Extract<Expression, { kind: 'binary' }>, evaluate: Evaluator): HclValue {
  const { op } = expr;
  const want = OPERAND_TYPE[op];
  const left = ctx.isolated(() => evaluate(ctx, expr.lhs));
  const right = ctx.isolated(() => evaluate(ctx, expr.rhs));
  const conversionErrors = ctx.diags.length;
  const lhs = operand(ctx, left.result, want, 'left', expr.lhs);
  const rhs = operand(ctx, right.result, want, 'right', expr.rhs);
  if (ctx.diags.length > conversionErrors) {
    ctx.diags.push(...left.diags, ...right.diags);
    return UNKNOWN;
  }
  if (op === '&&' || op === '||') {
    const decided = shortCircuit(op === '||', lhs, rhs, left.diags, right.diags);
    if (decided) {
      ctx.diags.push(...decided.diags);
      return decided.result;
    }
  }
  ctx.diags.push(...left.diags, ...right.diags);
  if (hasErrors(left.diags) || hasErrors(right.diags)) return UNKNOWN;
  if (lhs instanceof HclUnknown || rhs instanceof HclUnknown) return UNKNOWN;
  if (op === '==') return valuesEqual(lhs, rhs);
  if (op === '!=') return !valuesEqual(lhs, rhs);
  if (lhs instanceof HclNull || rhs instanceof HclNull) {
    return ctx.error('Operation failed', 'Error during operation: argument must not be null.', expr.range);
  }
  if (op === '&&') return (lhs as boolean) && (rhs as boolean);
  if (op === '||') return (lhs as boolean) || (rhs as boolean);
  const a = lhs as HclNumber;
  const b = rhs as HclNumber;
  try {
    switch (op) {
      case '<': return a.compare(b) < 0;
      case '>': return a.compare(b) > 0;
      case '<=': return a.compare(b) <= 0;
      case '>=': return a.compare(b) >= 0;
      case '+': return a.add(b);
      case '-': return a.subtract(b);
      case '*': return a.multiply(b);
      case '/': return a.divide(b);
      case '%': return a.modulo(b);
    }
  } catch (error) {
    if (error instanceof NumberRangeError) return ctx.error('Operation failed', `Error during operation: ${error.message}.`, expr.range);
    throw error;
  }
}

/** Upstream's short-circuit rules for || (`controlling` true) and && (false): the first side that decides wins. */
function shortCircuit(controlling: boolean, lhs: HclValue, rhs: HclValue, lhsDiags: Diagnostic[], rhsDiags: Diagnostic[]): { result: HclValue; diags: Diagnostic[] } | undefined {
  const lhsKnown = !(lhs instanceof HclUnknown);
  const rhsKnown = !(rhs instanceof HclUnknown);
  if (!lhsKnown && !rhsKnown) return hasErrors(lhsDiags) ? undefined : { result: UNKNOWN, diags: lhsDiags };
  if (lhs === controlling) return { result: controlling, diags: lhsDiags };
  if (rhs === controlling) return { result: controlling, diags: rhsDiags };
  if (!lhsKnown && rhs === !controlling) return { result: UNKNOWN, diags: lhsDiags };
  if (!rhsKnown && lhs === !controlling) return { result: UNKNOWN, diags: rhsDiags };
  return undefined;
}

function operand(ctx: EvalContext, v: HclValue, want: HclType, side: 'left' | 'right' | 'unary', expr: Expression): HclValue {
  try {
    return convert(v, want);
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    return ctx.error('Invalid operand', `Unsuitable value for ${side} operand: ${error.message}.`, expr.range);
  }
}

export function evalUnary(ctx: EvalContext, expr: Extract<Expression, { kind: 'unary' }>, evaluate: Evaluator): HclValue {
  const v = operand(ctx, evaluate(ctx, expr.operand), expr.op === '-' ? 'number' : 'bool', 'unary', expr.operand);
  if (v instanceof HclUnknown) return v;
  if (v instanceof HclNull) return ctx.error('Operation failed', 'Error during operation: argument must not be null.', expr.range);
  return expr.op === '-' ? (v as HclNumber).negate() : !(v as boolean);
}
