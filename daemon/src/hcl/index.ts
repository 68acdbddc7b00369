/**
 * HCL native syntax for Portico's configuration: parse files into bodies (attributes and
 * blocks with source ranges), evaluate expressions to plain JS values, report problems as
 * `file:line,startCol-endCol: summary; detail`.
 */
import type { Expression } from './ast.js';
import { errorDiag, HclError, hasErrors } from './diagnostics.js';
import { EvalContext } from './eval-context.js';
import { evalExpr } from './evaluate.js';
import type { FunctionTable } from './functions/define.js';
import { standardFunctions } from './functions/index.js';
import { parseExpressionSource } from './parse.js';
import { toPlain, type PlainValue } from './plain.js';
import { HclUnknown, type HclValue } from './values.js';

export type { Attribute, Block, Body, Expression, Traverser } from './ast.js';
export type { Diagnostic, Pos, Range } from './diagnostics.js';
export { HclError, formatDiagnostic, formatRange } from './diagnostics.js';
export { renderExcerpt, sourceExcerpt, type ExcerptLine, type SourceExcerpt } from './excerpt.js';
export { parse, parseExpressionSource, parseReusing, type ParseResult } from './parse.js';
export type { ParseState } from './reuse.js';
export { rangeText } from './source-text.js';
export type { PlainValue } from './plain.js';
export { fromPlain, toPlain } from './plain.js';
export { definePlainFunction, FunctionArgError, type FunctionTable, type HclFunction, type HclParam } from './functions/define.js';
export { standardFunctions } from './functions/index.js';
export { formatValue } from './format-value.js';
export { HclNumber } from './number.js';
export type { HclType, HclValue } from './values.js';

export type Variables = Readonly<Record<string, unknown>>;

/**
 * Evaluates to a typed HCL value (exact numbers, list vs tuple, map vs object), for
 * callers that need more than the plain form; throws HclError with every diagnostic.
 */
export function evaluateValue(expr: Expression, variables: Variables = {}, functions?: FunctionTable): HclValue {
  const ctx = new EvalContext(variables, standardFunctions, functions ?? null);
  const value = evalExpr(ctx, expr);
  if (hasErrors(ctx.diags)) throw new HclError(ctx.diags);
  if (value instanceof HclUnknown) {
    throw new HclError([errorDiag('Invalid expression', 'This expression contains syntax errors and cannot be evaluated.', expr.range)]);
  }
  return value;
}

/**
 * Evaluates an expression to a plain JS value: numbers, strings, booleans, null, arrays
 * (tuples, lists, sets) and plain objects (objects, maps). `variables` are plain JS
 * values too; `functions` are added to the standard library.
 */
export function evaluate(expr: Expression, variables: Variables = {}, functions?: FunctionTable): PlainValue {
  return toPlain(evaluateValue(expr, variables, functions));
}

/** Parses one expression and evaluates it; syntax errors throw HclError like evaluation errors. */
export function evaluateSource(exprSource: string, variables: Variables = {}, functions?: FunctionTable, filename = '<expression>'): PlainValue {
  return toPlain(evaluateSourceValue(exprSource, variables, functions, filename));
}

export function evaluateSourceValue(exprSource: string, variables: Variables = {}, functions?: FunctionTable, filename = '<expression>'): HclValue {
  const { expr, diagnostics } = parseExpressionSource(exprSource, filename);
  if (hasErrors(diagnostics)) throw new HclError(diagnostics);
  return evaluateValue(expr, variables, functions);
}
