import { describe, expect, it } from 'vitest';
import { sampleReload } from '../testing/fake-source.js';
import { rejectedSaveText } from './rejected-save-line.js';

const at = new Date(2026, 4, 7, 14, 3, 5);
const now = at.getTime() + 1_000;

describe('rejectedSaveText', () => {
  it('names the file, the position and the summary of the first error, and how many more there are', () => {
    const second = { ...sampleReload('rejected').diagnostics[0]!, line: 12 };
    const record = sampleReload('rejected', { startedAt: at.toISOString() });
    expect(rejectedSaveText(record, now)).toMatch(/^config rejected: portico\.hcl:9[:,]7:? Unsupported argument · 14:03:05$/);
    expect(rejectedSaveText({ ...record, diagnostics: [...record.diagnostics, second] }, now)).toMatch(/Unsupported argument \(\+1 more\) · 14:03:05$/);
  });

  it('leaves the time out before cutting the problem on a narrow line', () => {
    const record = sampleReload('rejected', { startedAt: at.toISOString() });
    expect(rejectedSaveText(record, now, 60)).toMatch(/^config rejected: portico\.hcl:9[:,]7:? Unsupported argument$/);
    expect(rejectedSaveText(record, now, 30)).toBe('config rejected: portico.hcl:…');
  });

  it('names the files read when the problem has no position, and says why an apply failed', () => {
    const noPosition = sampleReload('rejected', { startedAt: at.toISOString(), diagnostics: [{ severity: 'error', file: null, line: null, column: null, summary: 'No server block', detail: 'add one', text: 'No server block' }] });
    expect(rejectedSaveText(noPosition, now)).toBe('config rejected: portico.hcl: configuration error: No server block · 14:03:05');
    expect(rejectedSaveText(sampleReload('failed', { startedAt: at.toISOString() }), now)).toBe('config reload failed: listen EADDRINUSE 0.0.0.0:8080 · 14:03:05');
  });
});
