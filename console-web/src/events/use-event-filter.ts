import { eventFilterFromQuery, eventFilterToQuery, type EventFilter } from '@portico/daemon/control/event-filter';
import { useUrlState } from '../router/use-url-state';

interface UrlFilter {
  filter: EventFilter;
  /** Parts of the address that were ignored (an unknown level), said to the operator. */
  problems: string[];
}

/** The address keys of the Events view: `/events?level=warn,error&type=delivery.state`. */
const EVENTS_URL = { level: '', type: '' };

/**
 * The Events view's filter, kept in the address with the views' shared `useUrlState` so a
 * filtered list can be bookmarked or sent; Back and Forward restore it. A change replaces the
 * history entry: ticking boxes should not fill the Back button.
 */
export function useEventFilter(): [UrlFilter, (next: EventFilter) => void] {
  const [url, setUrl] = useUrlState(EVENTS_URL);
  const read = eventFilterFromQuery({ get: (name) => (name === 'level' || name === 'type' ? url[name] || null : null) });
  const change = (filter: EventFilter) => {
    const query = Object.fromEntries(eventFilterToQuery(filter));
    setUrl({ level: query.level ?? '', type: query.type ?? '' }, 'replace');
  };
  return [read, change];
}
