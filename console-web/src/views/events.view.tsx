import { EventList } from '../events/event-list';
import { EVENT_LOG_CAPACITY } from '../live/event-log';
import { useLive } from '../live/live-context';
import type { ViewDefinition } from './view-definition';

function EventsView() {
  const { events } = useLive();
  return (
    <section className="card" aria-label="Daemon events">
      <p className="muted intro">
        The daemon’s recent events, newest first; this tab keeps the last {EVENT_LOG_CAPACITY}.
      </p>
      <EventList events={events} label="Daemon events" />
    </section>
  );
}

export const view: ViewDefinition = { path: '/events', title: 'Events', order: 90, Component: EventsView };
