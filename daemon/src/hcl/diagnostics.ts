import { SourceRange } from './source-text.js';
import { PorticoError } from '../core/errors.js';

/** A position in a source file: 1-based line and column (columns count code points), 0-based UTF-8 byte offset. */
export interface Pos {
  line: number;
  column: number;
  byte: number;
}

/** A half-open source range; `end` points just past the last character. */
export interface Range {
  filename: string;
  start: Pos;
  end: Pos;
}

export interface Diagnostic {
  severity: 'error' | 'warning';
  summary: string;
  detail: string;
  /** Where the problem is; absent only for problems with no position (e.g. a bad variable passed by the caller). */
  range?: Range;
}

/** Thrown by `evaluate` and `evaluateSource`; carries every diagnostic found, not just the first. */
export class HclError extends PorticoError {
  override name = 'HclError';
  constructor(readonly diagnostics: Diagnostic[]) {
    super('hcl_error', diagnostics.map(formatDiagnostic).join('\n') || 'HCL error', { category: 'invalid' });
  }
}

export function rangeBetween(a: Range, b: Range): Range {
  return SourceRange.span(a, b) ?? { filename: a.filename, start: a.start, end: b.end };
}

/** The empty range at the start or end of `r`. */
export function emptyRangeOf(r: Range, which: 'start' | 'end'): Range {
  if (r instanceof SourceRange) return r.emptyAt(which);
  return { filename: r.filename, start: r[which], end: r[which] };
}

export function emptyRangeAt(pos: Pos, filename: string): Range {
  return { filename, start: pos, end: pos };
}

/** `l,c1-c2` on one line, `l1,c1-l2,c2` across lines (end exclusive, as the reference format says). */
export function formatRange(r: Range): string {
  const { start, end } = r;
  if (start.line === end.line) return `${r.filename}:${start.line},${start.column}-${end.column}`;
  return `${r.filename}:${start.line},${start.column}-${end.line},${end.column}`;
}

/** `file:line,startCol-endCol: summary; detail`; positionless ones as `configuration error: ...`. */
export function formatDiagnostic(d: Diagnostic): string {
  const text = d.detail ? `${d.summary}; ${d.detail}` : d.summary;
  if (!d.range) return `configuration error: ${text}`;
  return `${formatRange(d.range)}: ${text}`;
}

export function errorDiag(summary: string, detail: string, range?: Range): Diagnostic {
  return range ? { severity: 'error', summary, detail, range } : { severity: 'error', summary, detail };
}

export function hasErrors(diags: readonly Diagnostic[]): boolean {
  return diags.some((d) => d.severity === 'error');
}
