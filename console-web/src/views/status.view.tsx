import { EventList } from '../events/event-list';
import { useLive } from '../live/live-context';
import { AppLink } from '../router/app-link';
import { ComponentsTable } from '../status/components-table';
import { StatusOverview } from '../status/status-overview';
import { TimeText } from '../ui/time-text';
import type { ViewDefinition } from './view-definition';

const RECENT_EVENTS = 5;

function StatusView() {
  const live = useLive();
  const { status } = live;
  if (!status) {
    return <p className={live.statusError ? 'error' : 'muted'}>{live.statusError ?? 'Loading the daemon status…'}</p>;
  }
  return (
    <div className="stack">
      {live.link === 'disconnected' && live.statusAt !== null && (
        <p className="notice">
          Showing the last status received, at <TimeText iso={new Date(live.statusAt).toISOString()} />. It updates by itself when the daemon is back.
        </p>
      )}
      <StatusOverview live={live} />
      <ComponentsTable components={status.components} />
      <section className="card" aria-labelledby="recent-heading">
        <div className="card-heading">
          <h2 id="recent-heading">Recent events</h2>
          <AppLink to="/events">All events</AppLink>
        </div>
        <EventList events={live.events.slice(0, RECENT_EVENTS)} label="Recent events" />
      </section>
    </div>
  );
}

export const view: ViewDefinition = { path: '/status', title: 'Status', order: 10, Component: StatusView };
