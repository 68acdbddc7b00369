import type { Block, Body } from './ast.js';
import type { SourceText } from './source-text.js';
import type { TokenList } from './tokens.js';

/**
 * Every block of a parse, in source order (a block before the blocks inside it): the token
 * index of its type name and of its closing brace, and where its subtree of entries ends, so a
 * block taken into the next parse brings the entries of the blocks inside it along.
 */
export class BlockIndex {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  readonly blocks: Block[] = [];
  /** Entry position just past this block's subtree. */
  readonly next: number[] = [];

  get length(): number {
    return this.starts.length;
  }

  /** Opens an entry for a body item starting at token `start`; `close` or `drop` it once parsed. */
  open(start: number): number {
    const k = this.starts.length;
    this.starts.push(start);
    this.ends.push(-1);
    this.blocks.push(undefined as unknown as Block);
    this.next.push(-1);
    return k;
  }

  close(k: number, block: Block, end: number): void {
    this.ends[k] = end;
    this.blocks[k] = block;
    this.next[k] = this.starts.length;
  }

  /** The item at entry `k` was no block: it and anything opened after it go. */
  drop(k: number): void {
    this.starts.length = k;
    this.ends.length = k;
    this.blocks.length = k;
    this.next.length = k;
  }

  /** Copies entry `k` of `from` and its subtree, token indexes moved by `-shift`. */
  copySubtree(from: BlockIndex, k: number, shift: number): void {
    const base = this.starts.length - k;
    for (let i = k, n = from.next[k] as number; i < n; i++) {
      this.starts.push((from.starts[i] as number) - shift);
      this.ends.push((from.ends[i] as number) - shift);
      this.blocks.push(from.blocks[i] as Block);
      this.next.push((from.next[i] as number) + base);
    }
  }

  /** The entry whose block starts at token `start`, or -1. */
  find(start: number): number {
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = starts[mid] as number;
      if (s === start) return mid;
      if (s < start) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/**
 * What a parse leaves for the next parse of the same file: its text, tokens and blocks. Kept
 * only for a parse without diagnostics (blocks taken over carry none), and only while the
 * blocks it holds were made from at most MAX_GENERATIONS texts: a kept block's ranges read
 * their positions from the text it was parsed from, so each text stays alive while one of its
 * blocks is in use.
 */
export interface ParseState {
  readonly body: Body;
  readonly source: SourceText;
  readonly tokens: TokenList;
  readonly blocks: BlockIndex;
  /** How many texts the blocks of this parse may come from (1: this one alone). */
  readonly generations: number;
}

/** UTF-16 units compared at once while looking for where two texts start to differ. */
const CHUNK = 1024;

/** After this many parses that took blocks over, the next one parses everything again. */
export const MAX_GENERATIONS = 8;

/**
 * Which blocks of the previous parse the next one may take over instead of parsing them again,
 * and where each ends in the new tokens. A block is taken over when its text and tokens are the
 * same in both files:
 * - before the edit: the block ends where the two texts still agree (`prefix`; one unit earlier
 *   when the edit only inserted or removed text) and its tokens are among the leading tokens
 *   that match (type and offsets);
 * - after the edit: the block starts where the texts agree again and its tokens are among the
 *   trailing tokens that match (type, and offsets `delta` further in the new text).
 * Its ranges keep the previous text's offsets; once the parse is done, that text reads them in
 * the new one (SourceText.forwardTo), so they give the positions a whole parse gives. A block
 * taken over is parsed the way it was, because a block's parse depends only on its own tokens;
 * a parse that reports anything is done again without taking blocks over, so the diagnostics
 * are always those of a whole parse.
 */
export class Reuse {
  /** UTF-16 units at the start that both texts share. */
  readonly prefix: number;
  /** Where the units both texts share at the end begin, in the previous text; `delta` later in the new one. */
  readonly oldSuffixStart: number;
  /** The new text's length less the previous one's. */
  readonly delta: number;
  private readonly suffixStart: number;
  private readonly leading: number;
  private readonly trailingFrom: number;
  private readonly shift: number;
  /** Whether a block was taken over. */
  used = false;

  constructor(
    private readonly previous: ParseState,
    private readonly tokens: TokenList,
  ) {
    const oldText = previous.source.text;
    const newText = tokens.source.text;
    const max = Math.min(oldText.length, newText.length);
    // Whole chunks first (a string comparison is a memory comparison), then one unit at a time.
    let prefix = 0;
    while (prefix + CHUNK <= max && oldText.slice(prefix, prefix + CHUNK) === newText.slice(prefix, prefix + CHUNK)) prefix += CHUNK;
    while (prefix < max && oldText.charCodeAt(prefix) === newText.charCodeAt(prefix)) prefix++;
    let suffix = 0;
    const o = oldText.length;
    const n = newText.length;
    while (suffix + CHUNK <= max - prefix && oldText.slice(o - suffix - CHUNK, o - suffix) === newText.slice(n - suffix - CHUNK, n - suffix)) suffix += CHUNK;
    while (suffix < max - prefix && oldText.charCodeAt(o - 1 - suffix) === newText.charCodeAt(n - 1 - suffix)) suffix++;
    this.prefix = prefix;
    this.oldSuffixStart = o - suffix;
    this.delta = n - o;
    this.suffixStart = n - suffix;
    this.leading = tokens.sameLeading(previous.tokens);
    this.shift = previous.tokens.length - tokens.length;
    // Tokens after the edit: the same types at offsets `delta` further.
    this.trailingFrom = tokens.length - tokens.sameTrailing(previous.tokens, this.delta);
  }

  /**
   * The previous parse's block that starts at token `index` of the new tokens, if it can be
   * taken over: its entry in the previous index and the token index (new) of its closing brace.
   */
  at(index: number): { entry: number; end: number; shift: number } | undefined {
    const tokens = this.tokens;
    const old = this.previous.blocks;
    if (index < this.leading) {
      const k = old.find(index);
      if (k < 0) return undefined;
      const end = old.ends[k] as number;
      // Where the edit only inserted or removed text, its offset reads as the edit's far side
      // (SourceText.forwardTo): a block ending right there is not taken over.
      const last = this.oldSuffixStart > this.prefix ? this.prefix : this.prefix - 1;
      if (end < this.leading && tokens.end(end) <= last) return { entry: k, end, shift: 0 };
    }
    if (index < this.trailingFrom || tokens.start(index) < this.suffixStart) return undefined;
    const k = old.find(index + this.shift);
    if (k < 0) return undefined;
    return { entry: k, end: (old.ends[k] as number) - this.shift, shift: this.shift };
  }

  get blocks(): BlockIndex {
    return this.previous.blocks;
  }

  get generations(): number {
    return this.previous.generations;
  }
}
