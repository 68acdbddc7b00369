// One-line outcomes both consoles show for a job, a configuration reload and a CDS client.
import { plural } from './counts.js';

/** The one-line outcome of an ingest job: its error, rows, relations or tables; '' when it has none yet. */
export function jobOutcome(job: { result_json: Record<string, unknown> }): string {
  const r = job.result_json;
  if (typeof r.error === 'string') return r.error;
  if (typeof r.row_count === 'number') return plural(r.row_count, 'row');
  if (Array.isArray(r.relations)) return plural(r.relations.length, 'relation');
  if (Array.isArray(r.tables)) return plural(r.tables.length, 'table');
  return '';
}

/** What the consoles need of a reload record (the gateway's `ReloadRecord`). */
export interface ReloadOutcome<D extends { severity: string }> {
  result: 'applied' | 'rejected' | 'failed';
  diff?: { summary: string } | null;
  error?: string | null;
  diagnostics: readonly D[];
}

/**
 * What one reload did, in one line: the diff, the first problem, or the apply error.
 * `problemLine` writes a diagnostic (`diagnosticLine` of `@portico/daemon/control/diagnostics`).
 */
export function reloadOutcomeText<D extends { severity: string }>(r: ReloadOutcome<D>, problemLine: (d: D) => string): string {
  if (r.result === 'applied') return r.diff?.summary ?? 'unchanged';
  if (r.result === 'failed') return r.error ?? 'the new configuration could not be applied';
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0];
  return first ? `${plural(errors.length, 'problem')}: ${problemLine(first)}` : 'rejected';
}
