import type { ReloadDiagnostic, ReloadRecord } from '@portico/daemon/control';

export function fileName(path: string): string {
  return path.split('/').at(-1) ?? path;
}

/** `portico.hcl:7:3 Unsupported argument; An argument named "bogus" is not expected here.` */
export function diagnosticLine(d: ReloadDiagnostic): string {
  const text = d.detail ? `${d.summary}; ${d.detail}` : d.summary;
  if (!d.file) return `configuration error: ${text}`;
  return `${fileName(d.file)}:${d.line ?? '?'}:${d.column ?? '?'} ${text}`;
}

export const RESULT_LABEL = {
  applied: { glyph: '✓', word: 'applied', tone: 'good' },
  rejected: { glyph: '✗', word: 'rejected', tone: 'bad' },
  failed: { glyph: '✗', word: 'failed', tone: 'bad' },
} as const;

/** What one reload did, in one line: the diff, the first problem, or the apply error. */
export function outcomeText(r: ReloadRecord): string {
  if (r.result === 'applied') return r.diff?.summary ?? 'unchanged';
  if (r.result === 'failed') return r.error ?? 'the new configuration could not be applied';
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0];
  return first ? `${errors.length} problem${errors.length === 1 ? '' : 's'}: ${diagnosticLine(first)}` : 'rejected';
}

export function durationText(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** The numbered lines of a file's text, without the empty line after a final newline. */
export function numberedLines(text: string): Array<{ n: number; text: string }> {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((t, i) => ({ n: i + 1, text: t }));
}
