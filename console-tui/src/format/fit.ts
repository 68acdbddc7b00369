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
