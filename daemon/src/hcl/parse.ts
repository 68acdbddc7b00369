import type { Body, Expression } from './ast.js';
import { emptyRangeOf, type Diagnostic } from './diagnostics.js';
import { withoutFollowOns } from './follow-on.js';
import { scan } from './lexer.js';
import { parseBody } from './parse-body.js';
import { parseExpression } from './parse-expression.js';
import { Peeker } from './peeker.js';
import { BlockIndex, MAX_GENERATIONS, Reuse, type ParseState } from './reuse.js';

export interface ParseResult {
  body: Body;
  diagnostics: Diagnostic[];
}

/** Parses a whole configuration file. Never throws: every problem is a diagnostic. */
export function parse(source: string, filename: string): ParseResult {
  const { tokens, diagnostics } = scan(source, filename);
  return parseFile(new Peeker(tokens, filename), diagnostics);
}

/** The file's body from its tokens, and every diagnostic (the scanner's given). */
function parseFile(p: Peeker, scanned: readonly Diagnostic[]): ParseResult {
  const tokens = p.tokenList;
  const body = parseBody(p, 'eof', emptyRangeOf(tokens.token(0).range, 'start'));
  body.range = { filename: p.filename, start: { line: 1, column: 1, byte: 0 }, end: tokens.token(tokens.length - 1).range.end };
  return { body, diagnostics: withoutFollowOns(scanned, p.diags) };
}

/**
 * Parses a configuration file as `parse` does, taking over the blocks of the previous parse of
 * the same file (`previous`, from an earlier call) that the edit in between left as they were
 * (reuse.ts says when); the same text again gives the previous body itself. The result is the
 * same as `parse` would give, ranges and diagnostics included: a parse that reports anything
 * is done again in full. `state` is what to pass next time; undefined when this parse had
 * diagnostics. The bodies are shared: read them, never change them.
 */
export function parseReusing(source: string, filename: string, previous: ParseState | undefined): ParseResult & { state: ParseState | undefined } {
  // The same text again (the gateway and the CDS of one daemon each load a saved file): the same parse.
  if (previous !== undefined && previous.source.filename === filename && previous.source.text === source) return { body: previous.body, diagnostics: [], state: previous };
  const { tokens, diagnostics } = scan(source, filename);
  // A text whose positions a later one reads already (a second parse from the same state) is not taken from again.
  const usable = previous !== undefined && previous.generations < MAX_GENERATIONS && previous.source.filename === filename && !previous.source.forwarded && diagnostics.length === 0;
  const p = new Peeker(tokens, filename);
  p.blockIndex = new BlockIndex();
  if (usable) p.reuse = new Reuse(previous, tokens);
  const { body, diagnostics: all } = parseFile(p, diagnostics);
  if (all.length > 0) {
    if (p.reuse?.used) return { ...parse(source, filename), state: undefined };
    return { body, diagnostics: all, state: undefined };
  }
  const reuse = p.reuse;
  // The blocks taken over, and the previous parse's ranges, now read their positions in this text.
  if (reuse?.used) previous!.source.forwardTo(tokens.source, reuse.prefix, reuse.oldSuffixStart, reuse.delta);
  const generations = reuse?.used ? reuse.generations + 1 : 1;
  return { body, diagnostics: all, state: { body, source: tokens.source, tokens, blocks: p.blockIndex, generations } };
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
