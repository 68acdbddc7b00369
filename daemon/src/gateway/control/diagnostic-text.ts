// How both consoles write a configuration problem: the same `file:line,col` position as
// `portico config check` and the same source excerpt with a caret. Plain TypeScript with no
// Node or DOM types: the terminal console and the web dashboard import it.
import { formatRange } from '../../hcl/diagnostics.js';
import type { ReloadDiagnostic, ReloadRecord } from './control-types.js';

export { renderExcerpt, type ExcerptLine, type SourceExcerpt } from '../../hcl/excerpt.js';

/** The last path segment, which is what fits on a terminal line. */
export function fileName(path: string): string {
  return path.split('/').at(-1) ?? path;
}

/**
 * `portico.hcl:7,3-8` (`l1,c1-l2,c2` across lines): HCL's range format, as `config check`
 * writes it, with the file's name only; `portico.hcl:7,3` when the end is not known.
 */
export function positionText(d: ReloadDiagnostic): string | null {
  if (d.file === null || d.line === null || d.column === null) return null;
  const start = { line: d.line, column: d.column, byte: 0 };
  if (d.endLine === null || d.endLine === undefined || d.endColumn === null || d.endColumn === undefined) return `${fileName(d.file)}:${d.line},${d.column}`;
  return formatRange({ filename: fileName(d.file), start, end: { line: d.endLine, column: d.endColumn, byte: 0 } });
}

/** `portico.hcl:7,3-8: Unsupported argument; An argument named "bogus" is not expected here.`; a positionless one as `configuration error: ...`. */
export function diagnosticLine(d: ReloadDiagnostic): string {
  const text = d.detail ? `${d.summary}; ${d.detail}` : d.summary;
  const position = positionText(d);
  return position === null ? `configuration error: ${text}` : `${position}: ${text}`;
}

/**
 * A reload that did not apply, in short, for the notice both consoles show on every view until
 * a reload applies: the first error's position and summary (the Config view has the detail), or
 * why applying failed; `portico.hcl:9,7-12: Unsupported argument (+2 more)`.
 */
export function rejectedSaveProblem(record: ReloadRecord): string {
  if (record.result === 'failed') return record.error ?? 'the new configuration could not be applied';
  const errors = record.diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0];
  const files = record.sources.map((s) => fileName(s.path)).join(', ') || 'the configuration';
  const problem = !first ? `${files} does not load` : diagnosticLine({ ...first, detail: '' });
  // A problem without a position still names the files that were read.
  const named = first && positionText(first) === null ? `${files}: ${problem}` : problem;
  return errors.length > 1 ? `${named} (+${errors.length - 1} more)` : named;
}
