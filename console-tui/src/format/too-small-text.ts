import { cellWidth, wrapWords } from './fit.js';

/**
 * What a terminal smaller than the console needs says, in lines that fit `columns` x `rows`
 * without cutting a word: the full sentence wrapped, else shorter ones, else the size alone.
 */
export function tooSmallLines(columns: number, rows: number, need: { columns: number; rows: number }): string[] {
  const size = `${columns}x${rows}`;
  const wanted = `${need.columns}x${need.rows}`;
  const versions = [`Portico: terminal too small (${size}); need ${wanted}. q quits.`, `terminal too small: ${size}, need ${wanted}`, `too small, need ${wanted}`, `need ${wanted}`, wanted];
  for (const text of versions) {
    const lines = wrapWords(text, columns);
    if (lines.length <= Math.max(1, rows) && lines.every((l) => cellWidth(l) <= columns && !l.endsWith('…'))) return lines;
  }
  return wrapWords(wanted, Math.max(1, columns)).slice(0, Math.max(1, rows));
}
