import { eventTypesIn, filterEvents, isFiltered } from '@portico/daemon/control/event-filter';
import { EventFilterBar } from '../events/event-filter-bar';
import { EventList } from '../events/event-list';
import { useEventFilter } from '../events/use-event-filter';
import { EVENT_LOG_CAPACITY } from '../live/event-log';
import { useLive } from '../live/live-context';
import type { ViewDefinition } from './view-definition';

function EventsView() {
  const { events } = useLive();
  const [{ filter, problems }, setFilter] = useEventFilter();
  const shown = filterEvents(events, filter);
  return (
    <section className="card" aria-label="Daemon events">
      <p className="muted intro">
        The recent events of every daemon process on this database, newest first; this tab keeps the last {EVENT_LOG_CAPACITY}.
      </p>
      <EventFilterBar filter={filter} types={eventTypesIn(events, filter.type)} onChange={setFilter} />
      {problems.map((p) => (
        <p key={p} className="notice">
          {p}
        </p>
      ))}
      {isFiltered(filter) && (
        <p className="muted" role="status">
          Showing {shown.length} of {events.length} events.
        </p>
      )}
      <EventList events={shown} label="Daemon events" empty={isFiltered(filter) && events.length > 0 ? 'No events match the filter.' : undefined} />
    </section>
  );
}

export const view: ViewDefinition = { path: '/events', title: 'Events', order: 90, Component: EventsView };
