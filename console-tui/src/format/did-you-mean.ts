/**
 * Edits between two words: insertions, deletions, substitutions and swaps of two neighbours
 * (optimal string alignment), so `delivereis` is one edit from `deliveries`.
 */
export function editDistance(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const d: number[][] = Array.from({ length: x.length + 1 }, (_r, i) => Array.from({ length: y.length + 1 }, (_c, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[x.length]![y.length]!;
}

/**
 * The candidate closest to a mistyped `word`, if any is close enough to be what was meant: at
 * most one edit per three letters (one for short words; none for one or two letters, where
 * everything is close). Ties go to the earlier candidate.
 */
export function closestName(word: string, candidates: readonly string[]): string | null {
  const wanted = word.trim().toLowerCase();
  let best: { name: string; distance: number } | null = null;
  for (const name of candidates) {
    const allowed = Math.max(1, Math.floor(Math.max(Array.from(wanted).length, Array.from(name).length) / 3));
    if (Array.from(wanted).length < 3) continue;
    const distance = editDistance(wanted, name);
    if (distance > 0 && distance <= allowed && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}
