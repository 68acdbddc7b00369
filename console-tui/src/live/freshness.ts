import { formatClockOrDate } from '../format/duration.js';
import type { LiveState } from './live-store.js';

/**
 * The clock the screen runs on: the local one while connected, stopped at the moment the link
 * dropped while it is down, so what is shown stays a snapshot of that moment (uptime, "running
 * for", "4s ago" stop counting instead of claiming the daemon is still up).
 */
export function screenClock(live: Pick<LiveState, 'disconnectedAt'>, nowMs: number): number {
  // Not the last tick before the drop: that would move once more on the next tick.
  return live.disconnectedAt ?? nowMs;
}

/** `stale — last update 14:02:11` while the link is down (the data was live until it dropped), else null. */
export function staleText(live: Pick<LiveState, 'disconnectedAt'>, nowMs: number): string | null {
  if (live.disconnectedAt === null) return null;
  return `stale — last update ${formatClockOrDate(new Date(live.disconnectedAt).toISOString(), nowMs)}`;
}

/** Why keys that ask the daemon to change something are off: `short` for the hint line, `long` when one is pressed. */
export interface ActionsOff {
  short: string;
  long: string;
}

/** Null while the daemon can act (connected, or still connecting after the start's good read). */
export function actionsOff(live: Pick<LiveState, 'connection'>): ActionsOff | null {
  switch (live.connection) {
    case 'disconnected':
      return { short: 'actions off while disconnected', long: 'off while disconnected; it works again once the daemon is back' };
    case 'refused':
      return { short: 'actions off: token refused', long: 'off: the daemon refused the token; restart the console with the right token' };
    case 'connecting':
    case 'connected':
      return null;
  }
}
