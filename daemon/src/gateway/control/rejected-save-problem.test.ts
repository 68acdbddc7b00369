import { describe, expect, it } from 'vitest';
import type { ReloadDiagnostic, ReloadRecord } from './control-types.js';
import { rejectedSaveProblem } from './diagnostic-text.js';

const unsupported: ReloadDiagnostic = { severity: 'error', file: '/etc/portico/portico.hcl', line: 9, column: 7, endLine: 9, endColumn: 12, summary: 'Unsupported argument', detail: 'An argument named "bogus" is not expected here.', text: '' };

function record(result: ReloadRecord['result'], diagnostics: ReloadDiagnostic[] = [], error: string | null = null): ReloadRecord {
  return { id: 'i:1', trigger: 'file', startedAt: '2026-05-07T12:03:05Z', durationMs: 2, result, diagnostics, diff: null, error, sources: [{ path: '/etc/portico/portico.hcl', sha256: 'ab' }, { path: '/etc/portico/probe.hcl', sha256: 'cd' }] };
}

describe('rejectedSaveProblem', () => {
  it('is the first error in short: position and summary, and how many more', () => {
    const warning: ReloadDiagnostic = { ...unsupported, severity: 'warning', summary: 'Deprecated' };
    expect(rejectedSaveProblem(record('rejected', [warning, unsupported]))).toBe('portico.hcl:9,7-12: Unsupported argument');
    expect(rejectedSaveProblem(record('rejected', [unsupported, { ...unsupported, line: 12 }, { ...unsupported, line: 14 }]))).toBe('portico.hcl:9,7-12: Unsupported argument (+2 more)');
  });

  it('names the files read when the problem has no position, and says why an apply failed', () => {
    const positionless: ReloadDiagnostic = { ...unsupported, file: null, line: null, column: null, summary: 'No server block' };
    expect(rejectedSaveProblem(record('rejected', [positionless]))).toBe('portico.hcl, probe.hcl: configuration error: No server block');
    expect(rejectedSaveProblem(record('rejected'))).toBe('portico.hcl, probe.hcl does not load');
    expect(rejectedSaveProblem(record('failed', [], 'listen EADDRINUSE 0.0.0.0:8080'))).toBe('listen EADDRINUSE 0.0.0.0:8080');
  });
});
