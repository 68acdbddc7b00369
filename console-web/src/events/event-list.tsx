import type { DaemonEvent } from '@portico/daemon/control';
import { detailEntries, originText } from '@portico/daemon/control/event-filter';
import { levelLabel } from '../status/labels';
import { StateBadge } from '../ui/state-badge';
import { TimeText } from '../ui/time-text';
import './events.css';

/**
 * Newest first. Each event: time, level (glyph + word), type, message; the process it came from
 * when another daemon process sent it; a warning's details (ids, attempt, target, error) under it.
 */
export function EventList({ events, label, empty }: { events: readonly DaemonEvent[]; label: string; empty?: string }) {
  if (events.length === 0) return <p className="muted">{empty ?? 'No events yet. They appear here as the daemon reports them.'}</p>;
  return (
    <ol className="events" aria-label={label}>
      {events.map((e) => (
        <li key={e.id} className={`event level-${e.level}`}>
          <TimeText iso={e.at} />
          <StateBadge label={levelLabel(e.level)} />
          <span className="event-type">{e.type}</span>
          <span className="event-message">
            {e.message}
            {e.origin && (
              <span className="event-origin" title={`daemon process ${e.origin.bootId} on ${e.origin.host}`}>
                from {originText(e.origin)}
              </span>
            )}
          </span>
          {e.details && (
            <dl className="event-details" aria-label="Details">
              {detailEntries(e.details).map(([key, value]) => (
                <div key={key}>
                  <dt>{key}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
          )}
        </li>
      ))}
    </ol>
  );
}
