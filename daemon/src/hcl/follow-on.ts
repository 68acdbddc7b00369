import type { Diagnostic } from './diagnostics.js';

/**
 * A file's syntax problems with the cause first: the scanner's errors and the parser's in
 * source order, without the parser's errors on a line where the scanner already found a bad
 * token (they are its consequences: `a = 1;` is an invalid character, not also a missing
 * newline), and without the scanner repeating itself on one line (`'x'` is one mistake).
 */
export function withoutFollowOns(scanned: readonly Diagnostic[], parsed: readonly Diagnostic[]): Diagnostic[] {
  const badLines = new Set<number>();
  const told = new Set<string>();
  const kept: Diagnostic[] = [];
  for (const d of scanned) {
    const line = d.range?.start.line;
    const key = `${line ?? ''}\n${d.summary}\n${d.detail}`;
    if (told.has(key)) continue;
    told.add(key);
    if (line !== undefined) badLines.add(line);
    kept.push(d);
  }
  for (const d of parsed) if (!d.range || !badLines.has(d.range.start.line)) kept.push(d);
  // Stable: on the same position the scanner's error stays ahead of the parser's.
  return kept.sort((a, b) => (a.range?.start.byte ?? -1) - (b.range?.start.byte ?? -1));
}
