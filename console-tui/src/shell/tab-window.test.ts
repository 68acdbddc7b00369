import { describe, expect, it } from 'vitest';
import { overflowText, tabWindow } from './header.js';

const TITLES = ['status', 'events', 'config', 'backends', 'clusters', 'infosessions', 'keys', 'jobs', 'deliveries'];
const width = (w: ReturnType<typeof tabWindow>, current: number): number =>
  w.shown.reduce((sum, i) => sum + TITLES[i]!.length + (i === current ? 4 : 2), 0) + (w.hiddenBefore > 0 ? overflowText(w.hiddenBefore, 'before').length : 0) + (w.hiddenAfter > 0 ? overflowText(w.hiddenAfter, 'after').length : 0);

describe('tabWindow', () => {
  it('shows every tab when they fit', () => {
    expect(tabWindow(['status', 'events'], 0, 80)).toEqual({ shown: [0, 1], hiddenBefore: 0, hiddenAfter: 0 });
  });

  it('always shows the current tab and never overflows, counting the hidden ones on each side', () => {
    for (const columns of [40, 60, 80]) {
      for (let current = 0; current < TITLES.length; current++) {
        const w = tabWindow(TITLES, current, columns);
        expect(w.shown).toContain(current);
        expect(width(w, current)).toBeLessThanOrEqual(columns);
        expect(w.hiddenBefore + w.shown.length + w.hiddenAfter).toBe(TITLES.length);
        expect(w.shown).toEqual(Array.from({ length: w.shown.length }, (_v, k) => w.hiddenBefore + k));
      }
    }
  });

  it('at 80 columns on the last view, shows the tabs before it and counts the rest', () => {
    const w = tabWindow(TITLES, 8, 80);
    expect(w.shown.at(-1)).toBe(8);
    expect(w.hiddenAfter).toBe(0);
    expect(w.hiddenBefore).toBeGreaterThan(0);
  });

  it('says how many tabs did not fit as words: +1 tab, +2 tabs', () => {
    expect(overflowText(1, 'after')).toBe('+1 tab ›');
    expect(overflowText(2, 'before')).toBe('‹ +2 tabs');
  });
});
