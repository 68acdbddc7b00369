import type { DaemonEvent } from '@portico/daemon/control';

export const EVENT_LOG_CAPACITY = 200;

/**
 * Adds `incoming` to a newest-first list, ignoring ids already there: a reconnecting
 * subscription replays what the daemon still buffers, some of which we have seen.
 */
export function mergeEvents(current: readonly DaemonEvent[], incoming: readonly DaemonEvent[], capacity = EVENT_LOG_CAPACITY): DaemonEvent[] {
  const seen = new Set(current.map((e) => e.id));
  const fresh = incoming.filter((e) => {
    if (seen.has(e.id)) return false;
    seen.add(e.id);
    return true;
  });
  if (fresh.length === 0) return current as DaemonEvent[];
  return [...fresh.reverse(), ...current].slice(0, capacity);
}
