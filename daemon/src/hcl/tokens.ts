import type { Range } from './diagnostics.js';
import type { SourceText } from './source-text.js';

/** Every token type; a token list stores the index into this table. */
const TOKEN_TYPES = [
  'ident', 'number', 'oquote', 'cquote', 'oheredoc', 'cheredoc', 'quotedlit', 'stringlit',
  'interp', 'control', 'seqend',
  '{', '}', '[', ']', '(', ')', ',', '.', '*', '/', '%', '+', '-', '=', '<', '>', '!', '?', ':',
  '==', '!=', '<=', '>=', '&&', '||', '::', '...', '=>',
  'newline', 'invalid', 'eof',
] as const;

export type TokenType = (typeof TOKEN_TYPES)[number];

const TYPE_CODE = new Map<TokenType, number>(TOKEN_TYPES.map((t, i) => [t, i]));
const STRIP = 1;
const FLUSH = 2;
const NO_VALUE = -1;

/**
 * The scanner's output as parallel typed arrays of offsets rather than one object per
 * token: a 10,000-line file has ~100,000 tokens, and keeping them all alive as objects
 * (with their positions) made parsing mostly garbage collection.
 */
export class TokenList {
  private count = 0;
  private types: Uint8Array;
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
    this.types = new Uint8Array(capacity);
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.valueIndex = new Int32Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  push(type: TokenType, start: number, end: number, value?: string, strip = false, flush = false): void {
    const i = this.count++;
    if (i === this.starts.length) this.grow();
    this.types[i] = TYPE_CODE.get(type) as number;
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
    const bigger = <T extends Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity);
      b.set(a);
      return b;
    };
    this.types = bigger(this.types, (n) => new Uint8Array(n));
    this.starts = bigger(this.starts, (n) => new Int32Array(n));
    this.ends = bigger(this.ends, (n) => new Int32Array(n));
    this.valueIndex = bigger(this.valueIndex, (n) => new Int32Array(n));
    this.flags = bigger(this.flags, (n) => new Uint8Array(n));
  }

  type(i: number): TokenType {
    return TOKEN_TYPES[this.types[i] as number] as TokenType;
  }

  start(i: number): number {
    return this.starts[i] as number;
  }

  end(i: number): number {
    return this.ends[i] as number;
  }

  value(i: number): string | undefined {
    const vi = this.valueIndex[i] as number;
    return vi === NO_VALUE ? undefined : this.values[vi];
  }

  flag(i: number, which: 'strip' | 'flush'): boolean {
    return ((this.flags[i] as number) & (which === 'strip' ? STRIP : FLUSH)) !== 0;
  }

  /** How many tokens from the first are the same in `other` (type and offsets). */
  sameLeading(other: TokenList): number {
    const n = Math.min(this.count, other.count);
    let i = 0;
    while (i < n && this.types[i] === other.types[i] && this.starts[i] === other.starts[i] && this.ends[i] === other.ends[i]) i++;
    return i;
  }

  /** How many tokens from the last are the same in `other`, whose offsets are `delta` less than these. */
  sameTrailing(other: TokenList, delta: number): number {
    const n = Math.min(this.count, other.count);
    let k = 0;
    for (let i = this.count - 1, j = other.count - 1; k < n; k++, i--, j--) {
      if (this.types[i] !== other.types[j] || this.starts[i] !== (other.starts[j] as number) + delta || this.ends[i] !== (other.ends[j] as number) + delta) break;
    }
    return k;
  }

  /** A view of token `i`, made on demand (the parser keeps only the ranges it needs). */
  token(i: number): Token {
    return new Token(this, i, this.type(i));
  }

  all(): Token[] {
    const out: Token[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.token(i));
    return out;
  }
}

/** One token of a TokenList; everything but the type is read from the list when asked for. */
export class Token {
  private cachedText: string | undefined;
  private cachedRange: Range | undefined;

  constructor(
    private readonly list: TokenList,
    private readonly index: number,
    readonly type: TokenType,
  ) {}

  /** UTF-16 offsets into the source. */
  get start(): number {
    return this.list.start(this.index);
  }

  get end(): number {
    return this.list.end(this.index);
  }

  /** Literal tokens: the text after escapes are resolved. */
  get value(): string | undefined {
    return this.list.value(this.index);
  }

  /** interp/control openers and seqend closers: whether the `~` strip marker is present. */
  get strip(): boolean {
    return this.list.flag(this.index, 'strip');
  }

  /** Heredoc openers: whether it is the indent-stripping `<<-` form. */
  get flush(): boolean {
    return this.list.flag(this.index, 'flush');
  }

  /** The source text of the token. */
  get text(): string {
    this.cachedText ??= this.list.source.text.slice(this.start, this.end);
    return this.cachedText;
  }

  get range(): Range {
    this.cachedRange ??= this.list.source.range(this.start, this.end);
    return this.cachedRange;
  }
}
