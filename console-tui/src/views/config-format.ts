import { diagnosticLine, renderExcerpt } from '@portico/daemon/control/diagnostics';
import type { ReloadDiagnostic, ReloadRecord } from '@portico/daemon/control';
import { reloadOutcomeText } from '@portico/daemon/display';
import { wrapLines } from '../format/fit.js';
import type { Tone } from '../format/state-label.js';

// One way to write a problem in both consoles and `portico config check`: `file:line,col-col: summary; detail`.
export { diagnosticLine, fileName } from '@portico/daemon/control/diagnostics';

/** What one reload did, in one line: the diff, the first problem, or the apply error. */
export function outcomeText(r: ReloadRecord): string {
  return reloadOutcomeText(r, diagnosticLine);
}

/** One screen row of a problem: its text (at most the width asked for) and how it is drawn. */
export interface ProblemRow {
  text: string;
  /** `bad`/`busy`: the problem's line (error/warning) and the caret under it; `dim`: the lines around it. */
  tone: Tone | 'dim';
}

/**
 * A problem as screen rows of at most `width` cells: its `file:line,col` line (wrapped, at
 * most `maxLines`), then the rejected file's lines around it with the caret under the column.
 */
export function problemRows(d: ReloadDiagnostic, width: number, maxLines = 1): ProblemRow[] {
  const tone: Tone = d.severity === 'error' ? 'bad' : 'busy';
  const rows: ProblemRow[] = wrapLines(diagnosticLine(d), width, maxLines).map((text) => ({ text, tone }));
  if (!d.excerpt) return rows;
  for (const line of renderExcerpt(d.excerpt, width - 2)) {
    rows.push({ text: `  ${line.text}`, tone: line.kind === 'caret' ? tone : line.kind === 'problem' ? 'plain' : 'dim' });
  }
  return rows;
}
