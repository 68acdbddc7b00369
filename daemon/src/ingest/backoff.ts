import { parseDuration } from '../core/duration.js';

/**
 * The wait before each attempt of a round, in milliseconds: entry 1 is the wait before the first
 * attempt (always 0: a delivery is due when its job finishes), entry n the wait after the
 * (n-1)th failure. Its length is the number of attempts a round makes before the row is DEAD.
 */
export type RetrySchedule = readonly number[];

/** The spec's table: 0 s, 30 s, 5 min, 1 h, 6 h; DEAD after the 5th failure. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = [0, 30_000, 5 * 60_000, 60 * 60_000, 6 * 60 * 60_000];

/** Attempts in one round (a round starts when the row is written, and again at each reset). */
export function maxAttempts(schedule: RetrySchedule): number {
  return schedule.length;
}

/**
 * After the `attemptsInRound`-th attempt of the round failed at `failedAt`: when to try again,
 * or null when that was the last attempt of the schedule (the row is DEAD).
 */
export function nextAttemptAfterFailure(schedule: RetrySchedule, attemptsInRound: number, failedAt: number): number | null {
  if (attemptsInRound >= schedule.length) return null;
  return failedAt + schedule[Math.max(1, attemptsInRound)]!;
}

export const MAX_SCHEDULE_ENTRIES = 20;
const MAX_WAIT_MS = 7 * 24 * 3600_000;
const EXAMPLE = 'e.g. 0s,30s,5m,1h,6h (the default)';

/**
 * Parses `0s,30s,5m,1h,6h` (durations as the other variables take them; a bare number is seconds).
 * Throws one message saying which entry is wrong and what to write instead.
 */
export function parseRetrySchedule(text: string): RetrySchedule {
  const entries = text.split(',').map((e) => e.trim());
  if (entries.length > MAX_SCHEDULE_ENTRIES) throw new Error(`has ${entries.length} entries; at most ${MAX_SCHEDULE_ENTRIES} attempts per round are allowed`);
  const waits = entries.map((entry, i) => {
    const where = `entry ${i + 1}`;
    if (entry === '') throw new Error(`${where} is empty; write the waits before each attempt separated by commas, ${EXAMPLE}`);
    let ms: number;
    try {
      ms = parseDuration(entry, where);
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}; the schedule is a comma list, ${EXAMPLE}`);
    }
    if (ms > MAX_WAIT_MS) throw new Error(`${where} '${entry}' is longer than 168h (7 days); a longer wait outlives the operators watching it`);
    return Math.round(ms);
  });
  if (waits[0] !== 0) throw new Error(`entry 1 is '${entries[0]}' but must be 0s: it is the wait before the first attempt, which is due when the job finishes; ${EXAMPLE}`);
  return waits;
}

/** `0s,30s,5m,1h,6h`: a schedule as the environment variable writes it. */
export function formatRetrySchedule(schedule: RetrySchedule): string {
  return schedule.map(formatWait).join(',');
}

function formatWait(ms: number): string {
  if (ms === 0) return '0s';
  for (const [unit, size] of [['h', 3600_000], ['m', 60_000], ['s', 1000]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}
