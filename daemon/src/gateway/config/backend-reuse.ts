import { rangeText, type Block, type Body, type Expression, type Pos, type Range } from '../../hcl/index.js';
import { expressionRefs } from './expr-refs.js';
import type { BackendConfig } from './model.js';

/** Nested blocks a reusable backend may have: read from their own constants, no side effects. */
const SELF_CONTAINED_BLOCKS: ReadonlySet<string> = new Set(['beta_health']);

/** A backend of the table, with what it was built from. */
export interface KeptBackend {
  readonly filename: string;
  readonly byte: number;
  readonly line: number;
  readonly column: number;
  /** The block's source text, from its type to its closing brace. */
  readonly text: string;
  readonly backend: BackendConfig;
  /**
   * `backend.range` is the only source position the backend holds, so the same text elsewhere
   * in the file gives this backend with that range moved (see ReusableBackends).
   */
  readonly movable: boolean;
}

/**
 * The `definitions` backends a load built that the next load may take as they are: a
 * reload of a 10,000-backend file where one backend changed builds one backend, not
 * 10,000 (and leaves 9,999 frozen objects in place instead of garbage).
 *
 * A backend is kept only when what it was built from is all in its block's text:
 * - every attribute, its nested blocks' too, reads no variable and calls no function (no
 *   `env`, no `unixtime()`), so nothing outside the text can change what it evaluates to;
 * - its nested blocks are only `beta_health` (an `oauth2` block names or makes other
 *   backends, an `openapi` block reads a file);
 * - building it reported nothing and checked no file (`ca_file`), so a reload still says
 *   and checks everything it said and checked the first time.
 *
 * The next load takes it when the block has the same label, file and text (compared as
 * text, not by byte offsets: a file with non-ASCII characters has more bytes than UTF-16
 * units). At the same start (byte, line and column: every position inside follows from these
 * and the text) it is the same object. When the block moved (an edit above it added or removed
 * characters or lines) but starts in the same column, every position inside it moved by the
 * same lines and bytes: a backend whose only position is its header range is taken as a copy
 * with that range moved. Anything else is built again.
 * Immutable: each load returns a new table; the caller keeps the one of its last load.
 */
export class ReusableBackends {
  static readonly EMPTY = new ReusableBackends(new Map());

  private constructor(private readonly byLabel: ReadonlyMap<string, KeptBackend>) {}

  /** How many backends the table holds. */
  get size(): number {
    return this.byLabel.size;
  }

  /** The backend built from this block's text in the load that made the table, at the block's position; undefined when it must be built. */
  find(label: string, block: Block): KeptBackend | undefined {
    const kept = this.byLabel.get(label);
    if (kept === undefined) return undefined;
    const { filename, start } = block.range;
    if (kept.filename !== filename || kept.column !== start.column) return undefined;
    if (rangeText(block.range) !== kept.text) return undefined;
    if (kept.byte === start.byte && kept.line === start.line) return kept;
    return kept.movable ? moved(kept, start) : undefined;
  }

  static builder(): ReusableBackendsBuilder {
    const entries = new Map<string, KeptBackend>();
    return {
      carry(label, kept) {
        entries.set(label, kept);
      },
      keep(label, block, backend) {
        const text = rangeText(block.range);
        if (text === undefined) return;
        const { filename, start } = block.range;
        const movable = onlyHeaderRange(backend);
        detachStrings(backend);
        entries.set(label, { filename, byte: start.byte, line: start.line, column: start.column, text: detached(text), backend, movable });
      },
      build: () => new ReusableBackends(entries),
    };
  }
}

export interface ReusableBackendsBuilder {
  /** A backend taken from the previous table (or its moved copy), kept for the next load as it is. */
  carry(label: string, kept: KeptBackend): void;
  /** A backend just built from a self-contained block (not frozen yet: its strings are detached from the file's text in place). */
  keep(label: string, block: Block, backend: BackendConfig): void;
  build(): ReusableBackends;
}

/** Each moved copy's original: the backend object a load built, which the copy equals but for `range`. */
const copiedFrom = new WeakMap<object, object>();

/**
 * The backend object a load built that `backend` equals in everything but its `range`: itself,
 * or for a copy taken at a moved block, the object it was copied from. What is cached by backend
 * object and reads no position (the CDS cluster encodings) keys on this.
 */
export function builtBackend<T extends object>(backend: T): T {
  return (copiedFrom.get(backend) as T | undefined) ?? backend;
}

/** `kept` at `start`: the same backend with its range moved by the lines and bytes the block moved. */
function moved(kept: KeptBackend, start: Pos): KeptBackend {
  const lines = start.line - kept.line;
  const bytes = start.byte - kept.byte;
  const shift = (p: Pos): Pos => Object.freeze({ line: p.line + lines, column: p.column, byte: p.byte + bytes });
  const r = kept.backend.range;
  const range: Range = Object.freeze({ filename: r.filename, start: shift(r.start), end: shift(r.end) });
  const backend: BackendConfig = Object.freeze({ ...kept.backend, range });
  copiedFrom.set(backend, builtBackend(kept.backend));
  return { ...kept, byte: start.byte, line: start.line, backend };
}

/**
 * Whether the backend's only source position is its top-level `range` (the model's ranges
 * are fields named `range` or ending in `Range`; an expression kept for per-request evaluation
 * has them too). True for every backend `selfContained` admits today; checked, not assumed, so
 * a field added to the model later cannot make a moved backend point at the old place.
 */
function onlyHeaderRange(backend: BackendConfig): boolean {
  const record = backend as unknown as Record<string, unknown>;
  for (const key of Object.keys(record)) if (key !== 'range' && !positionFree(key, record[key])) return false;
  return true;
}

function positionFree(key: string, value: unknown): boolean {
  if (key === 'range' || key.endsWith('Range')) return false;
  if (value === null || typeof value !== 'object') return true;
  const record = value as Record<string, unknown>;
  for (const k of Object.keys(record)) if (!positionFree(k, record[k])) return false;
  return true;
}

/**
 * V8 makes a substring of 13 characters or more a slice that keeps the whole string it was cut
 * from alive, and the lexer cuts literals from the file's text. A backend kept over many loads
 * would keep the text of the load that built it: with one backend changed per save, one old
 * copy of the whole file per save. So the strings a kept backend holds, and the block text kept
 * to compare, are copies: a cons string of ' ' and the string is flattened into a new string
 * when sliced, and the slice keeps only that copy.
 */
const SLICE_MIN = 13;

function detached(text: string): string {
  return text.length < SLICE_MIN ? text : (' ' + text).slice(1);
}

/** Replaces every string of a just-built model tree by its detached copy; frozen parts (shared constants) are left alone. */
function detachStrings(value: object): void {
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const v = record[key];
    if (typeof v === 'string') record[key] = detached(v);
    else if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) detachStrings(v);
  }
}

/** Whether a backend block is built from its own text alone (see ReusableBackends). */
export function selfContained(block: Block): boolean {
  return constantBody(block.body, true);
}

function constantBody(body: Body, top: boolean): boolean {
  for (const name in body.attributes) if (!constant(body.attributes[name]!.expr)) return false;
  for (const nested of body.blocks) if (!top || !SELF_CONTAINED_BLOCKS.has(nested.type) || !constantBody(nested.body, false)) return false;
  return true;
}

/** Reads no variable and calls no function: its value is in its text. */
function constant(e: Expression): boolean {
  const refs = expressionRefs(e);
  return refs.variables.length === 0 && refs.calls.length === 0;
}
