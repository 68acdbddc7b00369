/** Terminal cells a string takes; our own text is ASCII plus one-cell glyphs (● ○ ✗ ◐ …). */
export function cellWidth(text: string): number {
  return Array.from(text).length;
}

/** Cuts `text` to `width` cells, ending with `…` when something was cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = Array.from(text.replace(/[\r\n\t]+/g, ' '));
  if (chars.length <= width) return chars.join('');
  return chars.slice(0, width - 1).join('') + '…';
}

/** Exactly `width` cells: truncated with `…` or padded with spaces. */
export function fit(text: string, width: number): string {
  const cut = truncate(text, width);
  return cut + ' '.repeat(Math.max(0, width - cellWidth(cut)));
}

/**
 * Splits `text` into lines of at most `width` cells at spaces; a word longer than a line is
 * cut with `…` (it cannot wrap sensibly). At least one line, possibly empty.
 */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (cellWidth(candidate) <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    line = cellWidth(word) <= width ? word : truncate(word, width);
  }
  lines.push(line);
  return lines;
}
