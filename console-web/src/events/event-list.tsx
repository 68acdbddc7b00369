import type { DaemonEvent } from '@portico/daemon/control';
import { levelLabel } from '../status/labels';
import { StateBadge } from '../ui/state-badge';
import { TimeText } from '../ui/time-text';

/** Newest first. Each event: time, level (glyph + word), type, message. */
export function EventList({ events, label }: { events: readonly DaemonEvent[]; label: string }) {
  if (events.length === 0) return <p className="muted">No events yet. They appear here as the daemon reports them.</p>;
  return (
    <ol className="events" aria-label={label}>
      {events.map((e) => (
        <li key={e.id} className={`event level-${e.level}`}>
          <TimeText iso={e.at} />
          <StateBadge label={levelLabel(e.level)} />
          <span className="event-type">{e.type}</span>
          <span className="event-message">{e.message}</span>
        </li>
      ))}
    </ol>
  );
}
