import { describe, expect, it } from 'vitest';
import { tooSmallLines } from './too-small-text.js';

const NEED = { columns: 20, rows: 6 };

describe('terminal too small', () => {
  it('wraps the whole message at words within the largest size it shows at (19x5)', () => {
    expect(tooSmallLines(19, 5, NEED)).toEqual(['Portico: terminal', 'too small (19x5);', 'need 20x6. q quits.']);
    expect(tooSmallLines(19, 23, NEED)).toEqual(['Portico: terminal', 'too small (19x23);', 'need 20x6. q quits.']);
  });

  it('says less, never a cut word, as the terminal shrinks', () => {
    for (const [columns, rows] of [[19, 5], [12, 3], [10, 2], [8, 1], [4, 1], [80, 5], [60, 1], [1, 1]] as const) {
      const lines = tooSmallLines(columns, rows, NEED);
      expect(lines.length, `${columns}x${rows}`).toBeLessThanOrEqual(rows);
      for (const line of lines) expect(Array.from(line).length, `${columns}x${rows}: ${line}`).toBeLessThanOrEqual(columns);
    }
    expect(tooSmallLines(80, 5, NEED)).toEqual(['Portico: terminal too small (80x5); need 20x6. q quits.']);
    expect(tooSmallLines(10, 2, NEED)).toEqual(['too small,', 'need 20x6']);
    expect(tooSmallLines(4, 1, NEED)).toEqual(['20x6']);
  });
});
