import { EventList } from '../events/event-list';
import { useLive } from '../live/live-context';
import { AppLink } from '../router/app-link';
import { ComponentsTable } from '../status/components-table';
import { DeliveryCountsCard } from '../status/delivery-counts-card';
import { StatusOverview } from '../status/status-overview';
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
      <StatusOverview live={live} />
      <DeliveryCountsCard />
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
