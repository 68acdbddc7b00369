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

/** Text from outside (a proxy's node id or NACK message, a login provider's error) made safe for the terminal: control characters (escape sequences included) become spaces. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}

/**
 * `text` wrapped at spaces into lines of `width` cells (continuations indented by one), at most
 * `maxLines`, the last ending with `…` when cut. Words (ids, URLs) are kept whole when the
 * whole text still fits that way; otherwise a short line is filled and a word may be split,
 * so the end of the text (a job's state, say) stays in view.
 */
export function wrapLines(text: string, width: number, maxLines: number): string[] {
  if (width < 8) return [truncate(text, width)];
  const chars = Array.from(text);
  const whole = wrapChars(chars, width, maxLines, true);
  return whole.rest.length === 0 ? whole.lines : finish(wrapChars(chars, width, maxLines, false), width);
}

function wrapChars(chars: readonly string[], width: number, maxLines: number, keepWords: boolean): { lines: string[]; rest: readonly string[] } {
  let rest = chars;
  const lines: string[] = [];
  while (rest.length > 0 && lines.length < maxLines) {
    const prefix = lines.length === 0 ? [] : [' '];
    const room = width - prefix.length;
    if (rest.length <= room) {
      lines.push([...prefix, ...rest].join(''));
      rest = [];
      break;
    }
    const space = rest.lastIndexOf(' ', room);
    const cut = space > room / 2 || (keepWords && space > 0 && wordAfter(rest, space) <= width - 1) ? space : room;
    lines.push([...prefix, ...rest.slice(0, cut)].join(''));
    rest = rest.slice(cut);
    while (rest[0] === ' ') rest = rest.slice(1);
  }
  return { lines, rest };
}

/** The length of the word after the space at `space`. */
function wordAfter(chars: readonly string[], space: number): number {
  const next = chars.indexOf(' ', space + 1);
  return (next === -1 ? chars.length : next) - space - 1;
}

function finish({ lines, rest }: { lines: string[]; rest: readonly string[] }, width: number): string[] {
  if (rest.length > 0) lines[lines.length - 1] = truncate(`${lines[lines.length - 1] ?? ''} ${rest.join('')}`, width);
  return lines;
}

/**
 * Every line of `text` wrapped at spaces to `width` cells, nothing cut: a word longer than a
 * line (a URL) is split across lines. Blank lines and the spaces between words are kept. For
 * panes that scroll.
 */
export function wrapText(text: string, width: number): string[] {
  const room = Math.max(1, width);
  const lines: string[] = [];
  for (const paragraph of text.replace(/\r\n?/g, '\n').split('\n')) {
    let line = '';
    for (const [, gap = '', word = ''] of printable(paragraph).matchAll(/( *)([^ ]+)/g)) {
      if (line !== '' && cellWidth(line) + gap.length + cellWidth(word) <= room) {
        line += gap + word;
        continue;
      }
      if (line !== '') lines.push(line);
      let rest = Array.from(word);
      while (rest.length > room) {
        lines.push(rest.slice(0, room).join(''));
        rest = rest.slice(room);
      }
      line = rest.join('');
    }
    lines.push(line);
  }
  return lines;
}
