// Source lines around a diagnostic, and their rendering with a caret under the problem.
// Plain TypeScript with no Node or DOM types: `portico config check`, the terminal console
// and the web dashboard all print an excerpt with `renderExcerpt`, so they show the same.
import type { Range } from './diagnostics.js';

/** The lines around a problem, as plain data (it crosses the control API). */
export interface SourceExcerpt {
  /** Line number of `lines[0]`. */
  firstLine: number;
  /** The line before the problem (when there is one), the problem's first line, the line after. Very long lines are cut around the problem, marked with `…`. */
  lines: string[];
  /** The problem's first line (its index in `lines` is `line - firstLine`). */
  line: number;
  /** The highlighted span on that line: 1-based columns counting code points, end exclusive; `endColumn` is the line's end when the range goes on to later lines. */
  startColumn: number;
  endColumn: number;
}

export interface ExcerptLine {
  /** `context`: a line around the problem; `problem`: the line it is on; `caret`: the `^~~~` under it. */
  kind: 'context' | 'problem' | 'caret';
  text: string;
}

/** Code points of context kept left of the problem on a cut line, and the most kept in all. */
const LEAD = 60;
const MAX_LINE = 160;
const TAB = '  ';

/** The lines of `text` around `range` (its start line, `context` lines before and after): never more of the file. */
export function sourceExcerpt(text: string, range: Range, context = 1): SourceExcerpt {
  const all = text.replace(/^\ufeff/, '').split('\n');
  const line = Math.max(1, Math.min(range.start.line, all.length));
  const first = Math.max(1, line - context);
  const last = Math.min(all.length, line + context);
  const raw = all.slice(first - 1, last).map((l) => [...l.replace(/\r$/, '')]);
  // The line a final newline leaves empty says nothing: drop it unless the problem is on it.
  if (last > line && raw.length > 0 && raw[raw.length - 1]!.length === 0 && last === all.length) raw.pop();
  const own = raw[line - first] ?? [];
  const start = Math.max(1, Math.min(range.start.column, own.length + 1));
  const end = range.end.line === range.start.line ? Math.max(start, Math.min(range.end.column, own.length + 1)) : own.length + 1;
  // One window for every line, so they stay aligned: from a little left of the problem.
  const from = own.length > MAX_LINE || raw.some((l) => l.length > MAX_LINE) ? Math.max(0, start - 1 - LEAD) : 0;
  const cut = (cps: string[]): string => {
    if (from === 0 && cps.length <= MAX_LINE) return cps.join('');
    const piece = cps.slice(from, from + MAX_LINE).join('');
    return `${from > 0 ? '…' : ''}${piece}${cps.length > from + MAX_LINE ? '…' : ''}`;
  };
  const shift = from > 0 ? from - 1 : 0;
  return {
    firstLine: first,
    lines: raw.map(cut),
    line,
    startColumn: start - shift,
    endColumn: Math.max(start, Math.min(end, from + MAX_LINE + 1)) - shift,
  };
}

/**
 * The excerpt as display lines, a gutter with line numbers, then a caret line under the
 * problem's line: `^` at its column and `~` under the rest of its span.
 *
 * ```
 *  4 │     response {
 *  5 │       body = "hello
 *    │              ^~~~~~
 *  6 │     }
 * ```
 *
 * Tabs show as two spaces. Given `width`, lines are moved left as far as needed for the caret
 * to show and cut to `width` with `…`.
 */
export function renderExcerpt(excerpt: SourceExcerpt, width = Number.POSITIVE_INFINITY): ExcerptLine[] {
  const gutter = String(excerpt.firstLine + excerpt.lines.length - 1).length;
  const own = [...(excerpt.lines[excerpt.line - excerpt.firstLine] ?? '')];
  const pad = [...expand(own.slice(0, excerpt.startColumn - 1))].length;
  const span = Math.max(1, [...expand(own.slice(excerpt.startColumn - 1, excerpt.endColumn - 1))].length);
  const caret = `${' '.repeat(pad)}^${'~'.repeat(span - 1)}`;
  const lead = gutter + 3;
  const room = width - lead;
  // Keep the caret (or its first columns, for a long span) in view.
  const shift = Number.isFinite(room) && pad + Math.min(span, 8) > room ? pad + Math.min(span, 8) - room + 1 : 0;
  const view = (text: string, mark = '…'): string => {
    const cps = [...text];
    const shown = shift > 0 ? [mark, ...cps.slice(shift + 1)] : cps;
    if (!Number.isFinite(room) || shown.length <= room) return shown.join('').trimEnd();
    return `${shown.slice(0, Math.max(0, room - 1)).join('')}…`;
  };
  const out: ExcerptLine[] = [];
  excerpt.lines.forEach((text, i) => {
    const n = excerpt.firstLine + i;
    const problem = n === excerpt.line;
    out.push({ kind: problem ? 'problem' : 'context', text: `${String(n).padStart(gutter)} │ ${view(expand([...text]))}`.trimEnd() });
    if (problem) out.push({ kind: 'caret', text: `${' '.repeat(gutter)} │ ${view(caret, ' ')}` });
  });
  return out;
}

function expand(cps: string[]): string {
  return cps.map((c) => (c === '\t' ? TAB : c)).join('');
}
