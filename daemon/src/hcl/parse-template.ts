import type { Expression } from './ast.js';
import { emptyRangeOf, formatRange, rangeBetween, type Range } from './diagnostics.js';
import { SourceRange } from './source-text.js';
import { parseExpression } from './parse-expression.js';
import type { Peeker } from './peeker.js';
import type { Token, TokenType } from './tokens.js';

/** The flat sequence a template is first raised to, before directives are nested. */
type Part =
  | { kind: 'literal'; value: string; range: Range }
  | { kind: 'interp'; expr: Expression; range: Range }
  | { kind: 'if'; cond: Expression; range: Range }
  | { kind: 'for'; keyVar: string | undefined; valVar: string; coll: Expression; range: Range }
  | { kind: 'endctrl'; which: 'else' | 'endif' | 'endfor'; range: Range }
  | { kind: 'end'; range: Range };

/**
 * `"text"` holding literal text and nothing else (most strings of a configuration): the
 * template the full parse below would make, without its parts list, directive pass and the
 * quotes' own ranges. Null, having read nothing, when anything else follows the opening quote.
 */
export function plainQuotedTemplate(p: Peeker, open: Token): Expression | null {
  if (p.peekType() !== 'quotedlit' || p.peekTypeAfterNext() !== 'cquote') return null;
  const literal = p.read();
  const close = p.read();
  return { kind: 'template', parts: [{ kind: 'literal', value: literal.value ?? '', range: literal.range }], range: p.span(open, close) };
}

/** `open` is the opening quote or heredoc marker, when there is one (a heredoc never closed is reported there). */
export function parseTemplateInner(p: Peeker, end: TokenType, flush: boolean, open?: Token): { parts: Expression[]; passthru: boolean } {
  const parts = parseParts(p, end, open);
  if (flush) flushHeredoc(parts);
  meldLiterals(parts);
  const tp = new TemplateParser(p, parts);
  const exprs = tp.parseRoot();
  const passthru = parts.length === 2 && parts[0]?.kind === 'interp';
  return { parts: exprs, passthru };
}

/** Leading/trailing white space removal for `~` strip markers (Unicode white space, newlines included). */
const trimLeft = (s: string): string => s.replace(/^\s+/u, '');
const trimRight = (s: string): string => s.replace(/\s+$/u, '');

function parseParts(p: Peeker, end: TokenType, open: Token | undefined): Part[] {
  const parts: Part[] = [];
  // The token, not its range: the range is only needed for errors and for `""`.
  const startToken = p.peek();
  let ltrimNext = false;
  let nextCanTrimPrev = false;
  let endRange: Range;
  for (;;) {
    const next = p.read();
    if (next.type === end) {
      endRange = next.range;
      break;
    }
    const ltrim = ltrimNext;
    ltrimNext = false;
    const canTrimPrev = nextCanTrimPrev;
    nextCanTrimPrev = false;
    if (next.type === 'stringlit' || next.type === 'quotedlit') {
      const value = next.value ?? '';
      parts.push({ kind: 'literal', value: ltrim ? trimLeft(value) : value, range: next.range });
      nextCanTrimPrev = true;
      continue;
    }
    if (next.type === 'interp' || next.type === 'control') {
      const prev = parts[parts.length - 1];
      if (canTrimPrev && next.strip && prev?.kind === 'literal') prev.value = trimRight(prev.value);
      p.pushIncludeNewlines(false);
      if (next.type === 'interp') {
        const expr = parseExpression(p);
        const close = p.peek();
        if (close.type !== 'seqend') {
          if (!p.recovery) interpCloseError(p, close.type, close.range, startToken.range, end);
          p.recover('seqend');
        } else {
          p.read();
          if (close.strip) ltrimNext = true;
        }
        p.popIncludeNewlines();
        parts.push({ kind: 'interp', expr, range: p.span(next, close) });
      } else {
        ltrimNext = parseDirective(p, next.range, startToken.range, parts);
        p.popIncludeNewlines();
      }
      continue;
    }
    if (p.recovery) {
      // Reported already.
    } else if (next.type === 'eof' && end === 'cheredoc' && open) {
      // The end of the file says nothing useful; the heredoc's opening line is where to look.
      const opener = open.text.trimEnd();
      const marker = opener.replace(/^<<-?/, '');
      p.error('Unterminated template string', `No closing marker was found for the string: the heredoc opened here runs to the end of the file. End it with a line holding only ${marker}, followed by a line break.`, p.headOf(open, opener.length));
    } else p.error('Unterminated template string', 'No closing marker was found for the string.', next.range);
    endRange = p.recover(end).range;
    break;
  }
  if (parts.length === 0) {
    // `""` is one empty literal, located just after the opening quote.
    parts.push({ kind: 'literal', value: '', range: emptyRangeOf(startToken.range, 'start') });
  }
  parts.push({ kind: 'end', range: endRange });
  return parts;
}

function interpCloseError(p: Peeker, type: TokenType, range: Range, startRange: Range, end: TokenType): void {
  if (type === 'eof') {
    p.error('Unclosed template interpolation sequence', 'There is no closing brace for this interpolation sequence before the end of the file. This might be caused by incorrect nesting inside the given expression.', startRange);
  } else if (type === ':') {
    p.error('Extra characters after interpolation expression', 'Template interpolation doesn\'t expect a colon at this location. Did you intend this to be a literal sequence to be processed as part of another language? If so, you can escape it by starting with "$${" instead of just "${".', range);
  } else if ((type === 'cquote' || type === 'oquote') && end === 'cquote') {
    p.error('Unclosed template interpolation sequence', 'There is no closing brace for this interpolation sequence before the end of the quoted template. This might be caused by incorrect nesting inside the given expression.', startRange);
  } else {
    p.error('Extra characters after interpolation expression', 'Expected a closing brace to end the interpolation expression, but found extra characters.\n\nThis can happen when you include interpolation syntax for another language, such as shell scripting, but forget to escape the interpolation start token. If this is an embedded sequence for another language, escape it by starting with "$${" instead of just "${".', range);
  }
}

/** Parses `%{ keyword ... }`; returns whether its closer had a strip marker. */
function parseDirective(p: Peeker, openRange: Range, startRange: Range, parts: Part[]): boolean {
  const kw = p.peek();
  if (kw.type !== 'ident') {
    if (!p.recovery) p.error('Invalid template directive', 'A template directive keyword ("if", "for", etc) is expected at the beginning of a %{ sequence.', kw.range);
    p.recover('seqend');
    return false;
  }
  p.read();
  const span = (): Range => p.between(openRange, p.nextRange());
  switch (kw.text) {
    case 'if': {
      const cond = parseExpression(p);
      parts.push({ kind: 'if', cond, range: span() });
      break;
    }
    case 'else':
    case 'endif':
    case 'endfor':
      parts.push({ kind: 'endctrl', which: kw.text, range: span() });
      break;
    case 'for': {
      const bail = (detail: string): boolean => {
        if (!p.recovery) p.error("Invalid 'for' directive", detail, p.peek().range);
        p.recover('seqend');
        return false;
      };
      if (p.peek().type !== 'ident') return bail("For directive requires variable name after 'for'.");
      let valVar = p.read().text;
      let keyVar: string | undefined;
      if (p.peek().type === ',') {
        keyVar = valVar;
        p.read();
        if (p.peek().type !== 'ident') return bail('For directive requires value variable name after comma.');
        valVar = p.read().text;
      }
      const inKw = p.peek();
      if (inKw.type !== 'ident' || inKw.text !== 'in') return bail("For directive requires 'in' keyword after names.");
      p.read();
      const coll = parseExpression(p);
      parts.push({ kind: 'for', keyVar, valVar, coll, range: span() });
      break;
    }
    default: {
      if (!p.recovery) {
        const suggestion = suggest(kw.text, ['if', 'for', 'else', 'endif', 'endfor']);
        p.error('Invalid template control keyword', `"${kw.text}" is not a valid template control keyword.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`, kw.range);
      }
      p.recover('seqend');
      return false;
    }
  }
  const close = p.peek();
  if (close.type !== 'seqend') {
    if (!p.recovery) p.error(`Extra characters in ${kw.text} marker`, 'Expected a closing brace to end the sequence, but found extra characters.', close.range);
    p.recover('seqend');
    return false;
  }
  p.read();
  return close.strip === true;
}

/** Upstream's nameSuggestion: the closest candidate within Levenshtein distance 3. */
export function suggest(given: string, candidates: string[]): string | undefined {
  for (const c of candidates) if (levenshtein(given, c) < 3) return c;
  return undefined;
}

function levenshtein(a: string, b: string): number {
  if (Math.abs(a.length - b.length) >= 3 || a.length > 64 || b.length > 64) return 99;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length] as number;
}

/** `<<-` heredocs: remove the smallest indentation of the non-blank lines from every line. */
function flushHeredoc(parts: Part[]): void {
  let minSpaces = Infinity;
  let newline = true;
  const adjust: Extract<Part, { kind: 'literal' }>[] = [];
  for (const part of parts) {
    if (newline) {
      newline = false;
      let spaces = 0;
      if (part.kind === 'literal') {
        const trimmed = trimLeft(part.value);
        if (trimmed.length === 0 && part.value.endsWith('\n')) spaces = Infinity;
        else {
          spaces = [...part.value.slice(0, part.value.length - trimmed.length)].length;
          adjust.push(part);
        }
      } else if (part.kind === 'end') break;
      if (spaces < minSpaces) minSpaces = spaces;
    }
    if (part.kind === 'literal' && part.value.endsWith('\n')) newline = true;
  }
  if (!Number.isFinite(minSpaces) || minSpaces === 0) return;
  for (const lit of adjust) {
    const chars = [...lit.value];
    const removed = chars.slice(0, minSpaces).join('');
    lit.value = chars.slice(minSpaces).join('');
    const r = lit.range;
    lit.range = r instanceof SourceRange ? r.skip(removed.length) : { ...r, start: { ...r.start, column: r.start.column + minSpaces, byte: r.start.byte + Buffer.byteLength(removed) } };
  }
}

function meldLiterals(parts: Part[]): void {
  for (let i = 1; i < parts.length; ) {
    const prev = parts[i - 1] as Part;
    const cur = parts[i] as Part;
    if (prev.kind === 'literal' && cur.kind === 'literal') {
      prev.value += cur.value;
      prev.range = rangeBetween(prev.range, cur.range);
      parts.splice(i, 1);
    } else i++;
  }
}

/** Turns the flat parts into expressions, nesting if/else/endif and for/endfor. */
class TemplateParser {
  private pos = 0;
  constructor(
    private readonly p: Peeker,
    private readonly parts: Part[],
  ) {}

  private peek(): Part {
    return this.parts[this.pos] as Part;
  }

  private read(): Part {
    const part = this.peek();
    if (part.kind !== 'end') this.pos++;
    return part;
  }

  parseRoot(): Expression[] {
    const exprs: Expression[] = [];
    while (this.peek().kind !== 'end') exprs.push(this.parseExpr());
    return exprs;
  }

  private parseExpr(): Expression {
    const part = this.read();
    switch (part.kind) {
      case 'literal':
        // A literal part already has the shape of a literal expression.
        return part;
      case 'interp':
        return part.expr;
      case 'if':
        return this.parseIf(part);
      case 'for':
        return this.parseFor(part);
      case 'endctrl':
        this.p.error(`Unexpected ${part.which} directive`, 'The control directives within this template are unbalanced.', part.range);
        return { kind: 'invalid', range: part.range };
      case 'end':
        this.p.error('Unexpected end of template', 'The control directives within this template are unbalanced.', part.range);
        return { kind: 'invalid', range: part.range };
    }
  }

  /** Collects parts up to a closing directive; undefined (after reporting) when the template ends first. */
  private collectUntilCtrl(open: Range, what: 'if' | 'for', into: Expression[]): Extract<Part, { kind: 'endctrl' }> | Extract<Part, { kind: 'end' }> {
    for (;;) {
      const next = this.peek();
      if (next.kind === 'end') {
        this.p.error('Unexpected end of template', `The ${what} directive at ${formatRange(open)} is missing its corresponding end${what} directive.`, next.range);
        return next;
      }
      if (next.kind === 'endctrl') {
        this.read();
        return next;
      }
      into.push(this.parseExpr());
    }
  }

  private parseIf(open: Extract<Part, { kind: 'if' }>): Expression {
    const ifExprs: Expression[] = [];
    const elseExprs: Expression[] = [];
    let current = ifExprs;
    let endifRange: Range;
    for (;;) {
      const end = this.collectUntilCtrl(open.range, 'if', current);
      if (end.kind === 'end') return { kind: 'invalid', range: end.range };
      if (end.which === 'else' && current === ifExprs) {
        current = elseExprs;
        continue;
      }
      if (end.which === 'endif') {
        endifRange = end.range;
        break;
      }
      if (end.which === 'else') this.p.error('Unexpected else directive', `Already in the else clause for the if started at ${formatRange(open.range)}.`, end.range);
      else this.p.error(`Unexpected ${end.which} directive`, `Expecting an endif directive for the if started at ${formatRange(open.range)}.`, end.range);
      return { kind: 'invalid', range: end.range };
    }
    if (ifExprs.length === 0) ifExprs.push({ kind: 'literal', value: '', range: emptyRangeOf(open.range, 'end') });
    if (elseExprs.length === 0) elseExprs.push({ kind: 'literal', value: '', range: emptyRangeOf(endifRange, 'start') });
    return {
      kind: 'conditional',
      condition: open.cond,
      trueResult: { kind: 'template', parts: ifExprs, range: spanOf(ifExprs) },
      falseResult: { kind: 'template', parts: elseExprs, range: spanOf(elseExprs) },
      range: rangeBetween(open.range, endifRange),
    };
  }

  private parseFor(open: Extract<Part, { kind: 'for' }>): Expression {
    const content: Expression[] = [];
    const end = this.collectUntilCtrl(open.range, 'for', content);
    if (end.kind === 'end') return { kind: 'invalid', range: end.range };
    if (end.which !== 'endfor') {
      if (end.which === 'else') this.p.error('Unexpected else directive', 'An else clause is not expected for a for directive.', end.range);
      else this.p.error(`Unexpected ${end.which} directive`, `Expecting an endfor directive corresponding to the for directive at ${formatRange(open.range)}.`, end.range);
      return { kind: 'invalid', range: end.range };
    }
    if (content.length === 0) content.push({ kind: 'literal', value: '', range: emptyRangeOf(open.range, 'end') });
    const range = rangeBetween(open.range, end.range);
    return {
      kind: 'templateJoin',
      tuple: {
        kind: 'for', keyVar: open.keyVar, valVar: open.valVar, collection: open.coll, keyExpr: undefined,
        valExpr: { kind: 'template', parts: content, range: spanOf(content) }, condition: undefined, group: false,
        openRange: open.range, closeRange: end.range, range,
      },
      range,
    };
  }
}

function spanOf(exprs: Expression[]): Range {
  const first = exprs[0] as Expression;
  const last = exprs[exprs.length - 1] as Expression;
  return rangeBetween(first.range, last.range);
}
