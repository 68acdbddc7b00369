import type { Expression } from './ast.js';
import { rangeBetween, type Range } from './diagnostics.js';

/**
 * The part of an expression that upstream's StartRange points at: the opening bracket of
 * a constructor, the name and parenthesis of a call, the start of an operation's first
 * operand. Upstream uses it for errors about a whole argument.
 */
export function startRange(expr: Expression): Range {
  switch (expr.kind) {
    case 'tuple':
    case 'object':
      return expr.openRange;
    case 'for':
      return expr.openRange;
    case 'call':
      return rangeBetween(expr.nameRange, expr.openParenRange);
    case 'conditional':
      return startRange(expr.condition);
    case 'binary':
      return startRange(expr.lhs);
    case 'unary':
      return expr.symbolRange;
    case 'template':
      return expr.parts[0] ? startRange(expr.parts[0]) : expr.range;
    case 'templateJoin':
      return expr.tuple.openRange;
    case 'index':
      return expr.bracketRange;
    case 'splat':
      return expr.markerRange;
    default:
      return expr.range;
  }
}
