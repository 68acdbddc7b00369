import type { Body, Expression } from './ast.js';
import { emptyRangeOf, type Diagnostic } from './diagnostics.js';
import { withoutFollowOns } from './follow-on.js';
import { scan } from './lexer.js';
import { parseBody } from './parse-body.js';
import { parseExpression } from './parse-expression.js';
import { Peeker } from './peeker.js';

export interface ParseResult {
  body: Body;
  diagnostics: Diagnostic[];
}

/** Parses a whole configuration file. Never throws: every problem is a diagnostic. */
export function parse(source: string, filename: string): ParseResult {
  const { tokens, diagnostics } = scan(source, filename);
  const p = new Peeker(tokens, filename);
  const body = parseBody(p, 'eof', emptyRangeOf(tokens.token(0).range, 'start'));
  body.range = { filename, start: { line: 1, column: 1, byte: 0 }, end: tokens.token(tokens.length - 1).range.end };
  return { body, diagnostics: withoutFollowOns(diagnostics, p.diags) };
}

/** Parses a standalone expression (newlines are insignificant, as upstream's ParseExpression). */
export function parseExpressionSource(source: string, filename: string): { expr: Expression; diagnostics: Diagnostic[] } {
  const { tokens, diagnostics } = scan(source, filename);
  const p = new Peeker(tokens, filename);
  p.pushIncludeNewlines(false);
  const expr = parseExpression(p);
  const next = p.peek();
  if (next.type !== 'eof' && !p.recovery) {
    p.error('Extra characters after expression', 'An expression was successfully parsed, but extra characters were found after it.', next.range);
  }
  return { expr, diagnostics: withoutFollowOns(diagnostics, p.diags) };
}
