import { describe, expect, it } from 'vitest';

// The time formats and labels are tested where they live: daemon/src/display/display.test.ts.

describe('summariseComponents', () => {
  it('counts states with problems first', async () => {
    const { summariseComponents } = await import('./component-summary');
    const c = (name: string, state: 'running' | 'failed') => ({ name, state, since: '', detail: null });
    expect(summariseComponents([c('a', 'running'), c('b', 'failed'), c('c', 'running')])).toBe('1 failed · 2 running');
    expect(summariseComponents([])).toBe('');
  });
});
