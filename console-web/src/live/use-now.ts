import { useEffect, useState } from 'react';
import { useOptionalLive } from './live-context';
import { staleSince } from './live-state';

/**
 * The current time, re-rendering the caller every `intervalMs` while `ticking`. While the link
 * to the daemon is down it stops (the page is a snapshot of the moment it dropped), so uptime and
 * "4s ago" stop counting instead of claiming the daemon is still up; it runs again when it is back.
 */
export function useNow(intervalMs: number, ticking = true): number {
  const live = useOptionalLive();
  const stoppedAt = live ? staleSince(live) : null;
  const running = ticking && stoppedAt === null;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, running]);
  // The last tick before the link dropped: a caller that polls on the clock does not fire once more into the void.
  return stoppedAt === null ? now : Math.min(now, stoppedAt);
}
