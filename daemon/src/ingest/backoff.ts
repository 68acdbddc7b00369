/** Attempts in total before a row is DEAD. */
export const MAX_ATTEMPTS = 5;

/** Wait before attempt n+1, measured from the failure of attempt n (index n-1). */
const WAIT_AFTER_FAILURE_MS = [30_000, 5 * 60_000, 60 * 60_000, 6 * 60 * 60_000] as const;

/**
 * After the `attempts`-th attempt failed at `failedAt`: when to try again, or null when the row
 * is DEAD (the 5th failure).
 */
export function nextAttemptAfterFailure(attempts: number, failedAt: number): number | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  const wait = WAIT_AFTER_FAILURE_MS[Math.max(0, attempts - 1)]!;
  return failedAt + wait;
}
