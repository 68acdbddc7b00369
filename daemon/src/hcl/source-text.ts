import type { Pos, Range } from './diagnostics.js';

/** Code-point and UTF-8 byte counts are kept every this many UTF-16 units of non-ASCII sources. */
const CHECKPOINT_SHIFT = 6;

/**
 * A source file with its line-start table, so the scanner can keep plain string
 * offsets and positions (line, code-point column, UTF-8 byte) are only computed for
 * ranges something actually keeps: AST nodes and diagnostics.
 */
export class SourceText {
  /** UTF-16 offset of the first character of each line (line 1 starts after a BOM). */
  private readonly lineStarts: number[] = [];
  /** For non-ASCII sources: code points and UTF-8 bytes before every checkpoint offset. */
  private readonly cpBefore: number[] | undefined;
  private readonly bytesBefore: number[] | undefined;
  private lastLine = 0;
  /** A later text of the same file whose parse took blocks of this one over: positions are read there (`forwardTo`). */
  private successor: Successor | null = null;

  constructor(
    readonly text: string,
    readonly filename: string,
  ) {
    // A BOM is skipped but still counts in byte offsets, as upstream does.
    this.lineStarts.push(text.charCodeAt(0) === 0xfeff ? 1 : 0);
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) this.lineStarts.push(nl + 1);
    if (/[^\x00-\x7f]/.test(text)) {
      this.cpBefore = [0];
      this.bytesBefore = [0];
      let cp = 0;
      let bytes = 0;
      const step = 1 << CHECKPOINT_SHIFT;
      for (let i = 0; i < text.length; i++) {
        cp += codePointWeight(text, i);
        bytes += utf8Weight(text, i);
        if ((i + 1) % step === 0) {
          this.cpBefore.push(cp);
          this.bytesBefore.push(bytes);
        }
      }
    }
  }

  get length(): number {
    return this.text.length;
  }

  /** Whether a later text reads this one's positions (`forwardTo`): a parse may take nothing more from this one. */
  get forwarded(): boolean {
    return this.successor !== null;
  }

  /**
   * Makes the ranges of this text read their positions in `next`, a later text of the same file
   * whose parse took over blocks parsed from this one: an offset from `suffixStart` on (the
   * texts agree again after it) is `delta` further there, one up to `prefix` (they agree before
   * it) is the same offset there, and one in between (the edit) keeps its position here. So a block
   * taken over from after an edit that changed the text's length or its lines reads where it
   * is now, as do the ranges of the earlier parse's other blocks outside the edit. Once only: a
   * text has one successor.
   */
  forwardTo(next: SourceText, prefix: number, suffixStart: number, delta: number): void {
    if (this.successor !== null) throw new Error(`${this.filename}: this text's positions are read in a later text already`);
    this.successor = { next, prefix, suffixStart, delta };
  }

  /** The position of UTF-16 offset `i` (in the latest text of the file, see forwardTo). */
  pos(i: number): Pos {
    const successor = this.successor;
    if (successor !== null) {
      // Where the edit only inserted or removed text, both apply at its offset: it is where a
      // block after the edit starts (blocks taken over from before it end earlier, reuse.ts).
      if (i >= successor.suffixStart) return successor.next.pos(i + successor.delta);
      if (i <= successor.prefix) return successor.next.pos(i);
    }
    const line = this.lineOf(i);
    const lineStart = this.lineStarts[line] as number;
    if (!this.cpBefore) return { line: line + 1, column: i - lineStart + 1, byte: i };
    return { line: line + 1, column: this.codePointsBefore(i) - this.codePointsBefore(lineStart) + 1, byte: this.utf8Before(i) };
  }

  /** Leading spaces and tabs of line `line` (1-based), for guesses from indentation. */
  indentOf(line: number): number {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return 0;
    let i = start;
    for (let c = this.text.charCodeAt(i); c === 32 || c === 9; c = this.text.charCodeAt(++i));
    return i - start;
  }

  range(start: number, end: number): SourceRange {
    return new SourceRange(this, start, end);
  }

  /** Index into lineStarts of the line holding offset `i`; scanning is mostly forward, so the last answer is tried first. */
  private lineOf(i: number): number {
    const starts = this.lineStarts;
    const last = this.lastLine;
    if (i >= (starts[last] as number) && (last + 1 >= starts.length || i < (starts[last + 1] as number))) return last;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= i) lo = mid;
      else hi = mid - 1;
    }
    this.lastLine = lo;
    return lo;
  }

  private codePointsBefore(i: number): number {
    const k = i >> CHECKPOINT_SHIFT;
    let n = (this.cpBefore as number[])[k] as number;
    for (let j = k << CHECKPOINT_SHIFT; j < i; j++) n += codePointWeight(this.text, j);
    return n;
  }

  private utf8Before(i: number): number {
    const k = i >> CHECKPOINT_SHIFT;
    let n = (this.bytesBefore as number[])[k] as number;
    for (let j = k << CHECKPOINT_SHIFT; j < i; j++) n += utf8Weight(this.text, j);
    return n;
  }
}

interface Successor {
  readonly next: SourceText;
  readonly prefix: number;
  readonly suffixStart: number;
  readonly delta: number;
}

/** 0 for the low half of a surrogate pair (the pair is one code point), else 1. */
function codePointWeight(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
    const h = s.charCodeAt(i - 1);
    if (h >= 0xd800 && h <= 0xdbff) return 0;
  }
  return 1;
}

/** UTF-8 bytes of the unit at `i`: a surrogate pair counts 4 on its high half; lone surrogates 3 (as U+FFFD). */
function utf8Weight(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff ? 4 : 3;
  }
  if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
    const h = s.charCodeAt(i - 1);
    if (h >= 0xd800 && h <= 0xdbff) return 0;
  }
  return 3;
}

/**
 * A range that keeps UTF-16 offsets and works out `start` and `end` positions when they
 * are read: a parsed file holds a range per node, and most are never looked at. Read it
 * like a plain Range (spreading it copies nothing); `toJSON` gives the plain form.
 */
export class SourceRange implements Range {
  readonly #source: SourceText;
  readonly #startOffset: number;
  readonly #endOffset: number;

  constructor(source: SourceText, startOffset: number, endOffset: number) {
    this.#source = source;
    this.#startOffset = startOffset;
    this.#endOffset = endOffset;
  }

  get filename(): string {
    return this.#source.filename;
  }

  /** Computed on each read (a fresh object, cheap): caching would make every range bigger. */
  get start(): Pos {
    return this.#source.pos(this.#startOffset);
  }

  get end(): Pos {
    return this.#source.pos(this.#endOffset);
  }

  /** From the start of `a` to the end of `b`, when both are ranges of the same source. */
  static span(a: Range, b: Range): SourceRange | undefined {
    if (!(a instanceof SourceRange) || !(b instanceof SourceRange) || a.#source !== b.#source) return undefined;
    return new SourceRange(a.#source, a.#startOffset, b.#endOffset);
  }

  /** The empty range at this range's start or end. */
  emptyAt(which: 'start' | 'end'): SourceRange {
    const at = which === 'start' ? this.#startOffset : this.#endOffset;
    return new SourceRange(this.#source, at, at);
  }

  /** This range without its first `units` UTF-16 units. */
  skip(units: number): SourceRange {
    return new SourceRange(this.#source, Math.min(this.#startOffset + units, this.#endOffset), this.#endOffset);
  }

  toJSON(): Range {
    return { filename: this.filename, start: this.start, end: this.end };
  }

  /** The text of the source this range covers (a slice of the parsed text: cheap to compare). */
  text(): string {
    return this.#source.text.slice(this.#startOffset, this.#endOffset);
  }
}

/**
 * The source text `r` covers when it is a range of a parsed file; undefined for a plain range
 * (a copy, or one made by hand). Positions are UTF-8 bytes, so they cannot cut the text.
 */
export function rangeText(r: Range): string | undefined {
  return r instanceof SourceRange ? r.text() : undefined;
}
