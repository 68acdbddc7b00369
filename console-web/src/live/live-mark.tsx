import { formatClockOrDate } from '../status/time-format';
import { useLive } from './live-context';
import { staleSince } from './live-state';

/** `live` while the page follows the daemon, `stale — last update 14:02:11` while the link is down. */
export function LiveMark() {
  const since = staleSince(useLive());
  if (since === null) return <span className="live-mark">live</span>;
  const iso = new Date(since).toISOString();
  return (
    <span className="live-mark live-mark-stale">
      stale — last update <time dateTime={iso}>{formatClockOrDate(iso, Date.now())}</time>
    </span>
  );
}
