import type { Range } from './diagnostics.js';
import type { SourceText } from './source-text.js';

export type TokenType =
  | 'ident'
  | 'number'
  | 'oquote'
  | 'cquote'
  | 'oheredoc'
  | 'cheredoc'
  | 'quotedlit'
  | 'stringlit'
  | 'quotednewline'
  | 'interp'
  | 'control'
  | 'seqend'
  | '{'
  | '}'
  | '['
  | ']'
  | '('
  | ')'
  | ','
  | '.'
  | '*'
  | '/'
  | '%'
  | '+'
  | '-'
  | '='
  | '<'
  | '>'
  | '!'
  | '?'
  | ':'
  | '=='
  | '!='
  | '<='
  | '>='
  | '&&'
  | '||'
  | '::'
  | '...'
  | '=>'
  | 'newline'
  | 'invalid'
  | 'eof';

const STRIP = 1;
const FLUSH = 2;
const NO_VALUE = -1;

/**
 * The scanner's output as parallel arrays of offsets rather than one object per token:
 * a 10,000-line file has ~100,000 tokens, and keeping them all alive as objects (with
 * their positions) made parsing mostly garbage collection.
 */
export class TokenList {
  /** Token types in scan order (interned strings, so the array holds no token objects). */
  readonly types: TokenType[] = [];
  private starts: Int32Array;
  private ends: Int32Array;
  private flags: Uint8Array;
  /** Index into `values` for literal tokens, NO_VALUE for the others. */
  private valueIndex: Int32Array;
  /** Literal tokens' text after escapes are resolved. */
  private readonly values: string[] = [];

  constructor(readonly source: SourceText) {
    // Real files average well over four characters per token, so this rarely grows.
    const capacity = (source.length >> 2) + 16;
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.valueIndex = new Int32Array(capacity);
  }

  get length(): number {
    return this.types.length;
  }

  push(type: TokenType, start: number, end: number, value?: string, strip = false, flush = false): void {
    const i = this.types.length;
    if (i === this.starts.length) this.grow();
    this.types.push(type);
    this.starts[i] = start;
    this.ends[i] = end;
    this.flags[i] = (strip ? STRIP : 0) | (flush ? FLUSH : 0);
    if (value === undefined) this.valueIndex[i] = NO_VALUE;
    else {
      this.valueIndex[i] = this.values.length;
      this.values.push(value);
    }
  }

  private grow(): void {
    const capacity = this.starts.length * 2;
    const resize = <T extends Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity);
      b.set(a);
      return b;
    };
    this.starts = resize(this.starts, (n) => new Int32Array(n));
    this.ends = resize(this.ends, (n) => new Int32Array(n));
    this.valueIndex = resize(this.valueIndex, (n) => new Int32Array(n));
    this.flags = resize(this.flags, (n) => new Uint8Array(n));
  }

  /** A view of token `i`, made on demand (the parser keeps only the ranges it needs). */
  token(i: number): Token {
    const flags = this.flags[i] as number;
    const vi = this.valueIndex[i] as number;
    return new Token(this.types[i] as TokenType, this.starts[i] as number, this.ends[i] as number, this.source, vi === NO_VALUE ? undefined : this.values[vi], (flags & STRIP) !== 0, (flags & FLUSH) !== 0);
  }

  all(): Token[] {
    return this.types.map((_, i) => this.token(i));
  }
}

export class Token {
  private cachedText: string | undefined;
  private cachedRange: Range | undefined;

  constructor(
    readonly type: TokenType,
    /** UTF-16 offsets into the source. */
    readonly start: number,
    readonly end: number,
    private readonly source: SourceText,
    /** Literal tokens: the text after escapes are resolved. */
    readonly value: string | undefined,
    /** interp/control openers and seqend closers: whether the `~` strip marker is present. */
    readonly strip: boolean,
    /** Heredoc openers: whether it is the indent-stripping `<<-` form. */
    readonly flush: boolean,
  ) {}

  /** The source text of the token. */
  get text(): string {
    this.cachedText ??= this.source.text.slice(this.start, this.end);
    return this.cachedText;
  }

  get range(): Range {
    this.cachedRange ??= this.source.range(this.start, this.end);
    return this.cachedRange;
  }
}
