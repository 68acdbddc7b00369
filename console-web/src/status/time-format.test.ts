import { describe, expect, it } from 'vitest';
import { componentLabel, levelLabel } from './labels';
import { formatClock, formatClockOrDate, formatUptime } from './time-format';

describe('formatUptime', () => {
  it('shows seconds until a day has passed', () => {
    expect(formatUptime(42.9)).toBe('42s');
    expect(formatUptime(303)).toBe('5m 03s');
    expect(formatUptime(2 * 3600 + 7 * 60 + 5)).toBe('2h 07m 05s');
    expect(formatUptime(3 * 86_400 + 4 * 3600 + 5 * 60 + 6)).toBe('3d 04h 05m');
    expect(formatUptime(-3)).toBe('0s');
  });
});

describe('formatClock', () => {
  it('keeps text that is not a time as it is', () => {
    expect(formatClock('not a time')).toBe('not a time');
    expect(formatClock(new Date(2025, 0, 2, 3, 4, 5).toISOString())).toBe('03:04:05');
  });
});

describe('labels', () => {
  it('gives every state a glyph and a word, so colour is never the only signal', () => {
    for (const state of ['registered', 'starting', 'running', 'stopping', 'stopped', 'failed'] as const) {
      const label = componentLabel(state);
      expect(label.glyph).not.toBe('');
      expect(label.word).toBe(state);
    }
    expect(levelLabel('error')).toMatchObject({ word: 'error', tone: 'bad' });
  });
});

describe('summariseComponents', () => {
  it('counts states with problems first', async () => {
    const { summariseComponents } = await import('./component-summary');
    const c = (name: string, state: 'running' | 'failed') => ({ name, state, since: '', detail: null });
    expect(summariseComponents([c('a', 'running'), c('b', 'failed'), c('c', 'running')])).toBe('1 failed · 2 running');
    expect(summariseComponents([])).toBe('');
  });
});

describe('formatClockOrDate', () => {
  it('gives the date too when the time is not today', () => {
    const now = new Date(2026, 4, 7, 9, 30).getTime();
    expect(formatClockOrDate(new Date(2026, 4, 7, 0, 0, 5).toISOString(), now)).toBe('00:00:05');
    expect(formatClockOrDate(new Date(2026, 4, 6, 23, 59, 59).toISOString(), now)).toBe('2026-05-06 23:59:59');
  });
});
