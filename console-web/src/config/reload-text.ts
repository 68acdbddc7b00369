import { diagnosticLine } from '@portico/daemon/control/diagnostics';
import type { ReloadRecord } from '@portico/daemon/control';
import { reloadOutcomeText } from '@portico/daemon/display';

// One way to write a problem in both consoles and `portico config check`: `file:line,col-col: summary; detail`.
export { diagnosticLine, fileName } from '@portico/daemon/control/diagnostics';

/** What one reload did, in one line: the diff, the first problem, or the apply error. */
export function outcomeText(r: ReloadRecord): string {
  return reloadOutcomeText(r, diagnosticLine);
}

/** The numbered lines of a file's text, without the empty line after a final newline. */
export function numberedLines(text: string): Array<{ n: number; text: string }> {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((t, i) => ({ n: i + 1, text: t }));
}
