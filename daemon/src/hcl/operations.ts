import type { BinaryOperator, Expression } from './ast.js';
import { convert, ConversionError } from './convert.js';
import type { EvalContext } from './eval-context.js';
import { HclNumber, NumberRangeError } from './number.js';
import { HclNull, HclUnknown, UNKNOWN, valuesEqual, type HclType, type HclValue } from './values.js';

type Evaluator = (ctx: EvalContext, expr: Expression) => HclValue;

const OPERAND_TYPE: Record<BinaryOperator, HclType> = {
  '||': 'bool', '&&': 'bool', '==': 'dynamic', '!=': 'dynamic',
  '<': 'number', '>': 'number', '<=': 'number', '>=': 'number',
  '+': 'number', '-': 'number', '*': 'number', '/': 'number', '%': 'number',
};

export function evalBinary(ctx: EvalContext, expr: Extract<Expression, { kind: 'binary' }>, evaluate: Evaluator): HclValue {
  const { op } = expr;
  const want = OPERAND_TYPE[op];
  const lhs = operand(ctx, evaluate(ctx, expr.lhs), want, 'left', expr.lhs);
  // && and || skip the right side when the left already decides (upstream short-circuits too).
  if ((op === '&&' && lhs === false) || (op === '||' && lhs === true)) return lhs;
  const rhs = operand(ctx, evaluate(ctx, expr.rhs), want, 'right', expr.rhs);
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
