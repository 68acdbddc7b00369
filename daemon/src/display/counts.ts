// Counts in words, as both consoles and the daemon's messages write them.

/** `1 cluster`, `2 clusters`; `many` for nouns whose plural is not the noun and an s (`deliveries`). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What still serves while a CSV file of the infosessions listing cannot be loaded: `n` of what it holds (`session`, `building`). */
export function stillServingText(n: number, one: string): string {
  return n > 0 ? `still serving the previous ${plural(n, one)}` : `no ${one}s are served until it loads`;
}
