import { errorDiag, rangeBetween, type Diagnostic, type Range } from './diagnostics.js';
import type { BlockIndex, Reuse } from './reuse.js';
import type { Token, TokenList, TokenType } from './tokens.js';

const OPPOSITE: Partial<Record<TokenType, TokenType>> = {
  '{': '}', '}': '{', '[': ']', ']': '[', '(': ')', ')': '(',
  oquote: 'cquote', cquote: 'oquote', oheredoc: 'cheredoc', cheredoc: 'oheredoc',
  interp: 'seqend', control: 'seqend', seqend: 'interp',
};

/** Deeper nesting than this is reported instead of recursing further, so no input can overflow the stack. */
export const MAX_NESTING = 400;

/**
 * Token cursor shared by the body, expression and template parsers: newline
 * sensitivity is a stack (newlines matter in bodies and object constructors, not
 * inside brackets), and `recovery` mutes follow-on errors after a syntax error.
 */
export class Peeker {
  private pos = 0;
  private readonly newlineStack: boolean[] = [true];
  recovery = false;
  /** An error stopped at the line break before a new body item (`stopBeforeLine`): recovering skips nothing more. */
  boundary = false;
  depth = 0;
  readonly diags: Diagnostic[] = [];
  /** Every multi-line block body closed so far: where a missing `}` is looked for when the file ends inside a block. */
  readonly closedBlocks: Array<{ header: Range; open: Range; close: Range }> = [];

  /** Where the parse records its blocks, for the next parse of the file to take over. */
  blockIndex: BlockIndex | undefined;
  /** The previous parse's blocks this parse may take over. */
  reuse: Reuse | undefined;
  /** Token index of the closing brace of the block parsed last. */
  blockEnd = -1;

  /** The two most recently viewed tokens: the parser peeks at the same token several times. */
  private cacheIndex0 = -1;
  private cacheIndex1 = -1;
  private cache0: Token | undefined;
  private cache1: Token | undefined;

  constructor(
    private readonly tokens: TokenList,
    readonly filename: string,
  ) {}

  private tokenAt(i: number): Token {
    if (i === this.cacheIndex0) return this.cache0 as Token;
    if (i === this.cacheIndex1) return this.cache1 as Token;
    const token = this.tokens.token(i);
    this.cacheIndex1 = this.cacheIndex0;
    this.cache1 = this.cache0;
    this.cacheIndex0 = i;
    this.cache0 = token;
    return token;
  }

  private includeNewlines(): boolean {
    return this.newlineStack[this.newlineStack.length - 1] as boolean;
  }

  pushIncludeNewlines(include: boolean): void {
    this.newlineStack.push(include);
  }

  popIncludeNewlines(): void {
    this.newlineStack.pop();
  }

  private nextIndex(): number {
    let i = this.pos;
    if (!this.includeNewlines()) while (this.tokens.type(i) === 'newline') i++;
    return i;
  }

  peek(): Token {
    return this.tokenAt(this.nextIndex());
  }

  /** The type of the next token, without making a token view. */
  peekType(): TokenType {
    return this.tokens.type(this.nextIndex());
  }

  /** The type of the token right after the next one, with nothing skipped between them. */
  peekTypeAfterNext(): TokenType {
    return this.tokens.type(this.nextIndex() + 1);
  }

  /** Moves past the next token without making a view of it (for tokens whose type was all that mattered). */
  skip(): void {
    const i = this.nextIndex();
    if (this.tokens.type(i) !== 'eof') this.pos = i + 1;
  }

  /** Index of the most recently read token. */
  lastIndex(): number {
    return Math.max(this.pos - 1, 0);
  }

  /** Goes on after token `index` (a block taken over from the previous parse ends there). */
  resumeAfter(index: number): void {
    this.pos = index + 1;
  }

  get tokenList(): TokenList {
    return this.tokens;
  }

  /** Where the next token is, to take its range later only if it turns out to be needed. */
  peekIndex(): number {
    return this.nextIndex();
  }

  /** From the start of token `a` to the end of token `b`, without making either token's own range. */
  span(a: Token, b: Token): Range {
    return this.tokens.source.range(a.start, b.end);
  }

  /** Where the most recently read token ends (UTF-16 offset), to close a range later without making that token's range. */
  prevEnd(): number {
    return this.tokens.end(Math.max(this.pos - 1, 0));
  }

  /** From the start of token `a` to offset `end` (a `prevEnd()`). */
  spanTo(a: Token, end: number): Range {
    return this.tokens.source.range(a.start, end);
  }

  /** The first `length` characters of token `t`. */
  headOf(t: Token, length: number): Range {
    return this.tokens.source.range(t.start, t.start + length);
  }

  rangeAt(index: number): Range {
    return this.tokenAt(index).range;
  }

  read(): Token {
    const i = this.nextIndex();
    const token = this.tokenAt(i);
    if (token.type !== 'eof') this.pos = i + 1;
    return token;
  }

  /** Range of the most recently read token (what upstream calls PrevRange). */
  prevRange(): Range {
    return this.tokenAt(Math.max(this.pos - 1, 0)).range;
  }

  nextRange(): Range {
    return this.peek().range;
  }

  error(summary: string, detail: string, range: Range): void {
    this.diags.push(errorDiag(summary, detail, range));
  }

  /**
   * Whether the next token starts a line and reads as the start of a body item or the close
   * of a block (`name =`, `name {`, `name "label"`, `}`): met inside a bracket left open,
   * it is where the author thought the bracket had been closed.
   */
  nextStartsBodyItem(): boolean {
    const i = this.nextIndex();
    if (i === 0 || this.tokens.type(i - 1) !== 'newline') return false;
    const type = this.tokens.type(i);
    if (type === '}') return true;
    if (type !== 'ident') return false;
    const after = this.tokens.type(i + 1);
    return after === '=' || after === '{' || after === 'oquote';
  }

  /** Ends recovery at the line break before the next token, so the body parser goes on with the item on that line. */
  stopBeforeLine(): void {
    this.pos = this.nextIndex() - 1;
    this.recovery = true;
    this.boundary = true;
  }

  /** Skips to just after the `end` token matching the current nesting level (or EOF). */
  recover(end: TokenType): Token {
    if (this.boundary) return this.tokenAt(this.pos);
    const start = OPPOSITE[end];
    this.recovery = true;
    let nest = 0;
    for (;;) {
      const token = this.read();
      let type = token.type;
      if (end === 'seqend' && type === 'control') type = 'interp';
      if (type === start) nest++;
      else if (type === end) {
        if (nest < 1) return token;
        nest--;
      } else if (type === 'eof') return token;
    }
  }

  /** Finds the next `start` bracket and skips past its matching end. */
  recoverOver(start: TokenType): void {
    for (;;) {
      const token = this.read();
      if (token.type === start || token.type === 'eof') break;
    }
    this.recover(OPPOSITE[start] as TokenType);
  }

  /** Skips to the end of the current body item: the next newline outside any brackets. */
  recoverAfterBodyItem(): void {
    this.recovery = true;
    if (this.boundary) {
      this.boundary = false;
      this.read();
      return;
    }
    const open: TokenType[] = [];
    for (;;) {
      const token = this.read();
      switch (token.type) {
        case 'newline':
          if (open.length === 0) return;
          break;
        case 'eof':
          return;
        case '{': case '[': case '(': case 'oquote': case 'oheredoc': case 'interp': case 'control':
          open.push(token.type);
          break;
        case '}': case ']': case ')': case 'cquote': case 'cheredoc': {
          const opener = OPPOSITE[token.type];
          while (open.length > 0 && open[open.length - 1] !== opener) open.pop();
          open.pop();
          break;
        }
        case 'seqend':
          while (open.length > 0 && open[open.length - 1] !== 'interp' && open[open.length - 1] !== 'control') open.pop();
          open.pop();
          break;
        default:
          break;
      }
    }
  }

  /** Leading white space of the line `range` starts on. */
  indentOf(range: Range): number {
    return this.tokens.source.indentOf(range.start.line);
  }

  between(a: Range, b: Range): Range {
    return rangeBetween(a, b);
  }
}

export function oppositeBracket(type: TokenType): TokenType {
  return OPPOSITE[type] as TokenType;
}
