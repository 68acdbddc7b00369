import type { ReloadRecord } from '@portico/daemon/control';
import { describe, expect, it } from 'vitest';
import { diagnosticLine, numberedLines, outcomeText } from './reload-text';

const record = (over: Partial<ReloadRecord>): ReloadRecord => ({
  id: 'a:1', trigger: 'file', startedAt: '2026-01-01T00:00:00Z', durationMs: 3, result: 'applied', diagnostics: [], diff: null, error: null, sources: [], ...over,
});

describe('reload texts', () => {
  it('writes a diagnostic as file:line,col-col: summary; detail (config check\'s format, the file name only), and a positionless one as a configuration error', () => {
    const at = { severity: 'error' as const, file: '/srv/conf/portico.hcl', line: 7, column: 3, summary: 'Unsupported argument', detail: 'not expected here.', text: '', excerpt: null };
    expect(diagnosticLine({ ...at, endLine: 7, endColumn: 8 })).toBe('portico.hcl:7,3-8: Unsupported argument; not expected here.');
    expect(diagnosticLine({ ...at, endLine: 9, endColumn: 2 })).toBe('portico.hcl:7,3-9,2: Unsupported argument; not expected here.');
    expect(diagnosticLine({ ...at, endLine: null, endColumn: null })).toBe('portico.hcl:7,3: Unsupported argument; not expected here.');
    expect(diagnosticLine({ severity: 'error', file: null, line: null, column: null, summary: "missing 'server' block", detail: '', text: '' })).toBe("configuration error: missing 'server' block");
  });

  it('sums up a reload by its diff, its first problem or its error', () => {
    const diff = { servers: { added: [], removed: [], changed: [] }, endpoints: { added: ['/b'], removed: [], changed: [] }, backends: { added: [], removed: [], changed: [] }, files: [], unchanged: false, summary: '+1 endpoint (/b)' };
    expect(outcomeText(record({ diff }))).toBe('+1 endpoint (/b)');
    const problem = { severity: 'error' as const, file: '/x/a.hcl', line: 2, column: 1, endLine: 2, endColumn: 4, summary: 'Bad', detail: '', text: '', excerpt: null };
    expect(outcomeText(record({ result: 'rejected', diagnostics: [problem, problem] }))).toBe('2 problems: a.hcl:2,1-4: Bad');
    expect(outcomeText(record({ result: 'failed', error: 'listen EADDRINUSE' }))).toBe('listen EADDRINUSE');
  });

  it('numbers the lines of a file without an extra line for the final newline', () => {
    expect(numberedLines('a\nb\n')).toEqual([{ n: 1, text: 'a' }, { n: 2, text: 'b' }]);
  });
});
