// Counts in words, as both consoles and the daemon's messages write them.

/** `1 cluster`, `2 clusters`; `many` for nouns whose plural is not the noun and an s (`deliveries`). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What the infosessions listing serves while its CSV file cannot be loaded. */
export function stillServingText(sessions: number): string {
  return sessions > 0 ? `still serving the previous ${plural(sessions, 'session')}` : 'no sessions are served until it loads';
}
