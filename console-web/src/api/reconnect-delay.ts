/** Quick first retries so a restarted daemon is picked up at once, then at most every 3 s. */
export function reconnectDelayMs(attemptIndex: number): number {
  return Math.min(250 * 2 ** attemptIndex, 3_000);
}
