import { useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { DaemonEvent } from '@portico/daemon/control';
import { describeEventFilter, detailsText, eventTypesIn, filterEvents, isFiltered, nextLevelStep, nextType, NO_EVENT_FILTER, originText, type EventFilter } from '@portico/daemon/control/event-filter';
import { formatClockOrDate } from '../format/duration.js';
import { fit, printable, truncate, wrapLines } from '../format/fit.js';
import { labelText, levelLabel } from '../format/state-label.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import type { ViewDefinition, ViewProps } from './view.js';

const TIME_WIDTH = 8;
const LEVEL_WIDTH = 7;
const TYPE_WIDTH = 15;
/** A warning's details (ids, attempt, target, error) wrap onto at most this many lines under it. */
const MAX_DETAIL_LINES = 4;
const DETAIL_INDENT = '    ↳ ';

/** Where the list is: pinned to the newest event, or held at a first visible row. */
type Scroll = { follow: true } | { follow: false; top: number };

/** Which events show their details under them: warnings and errors (what an operator acts on), every event, or none. */
type DetailsShown = 'warnings' | 'all' | 'none';
const NEXT_DETAILS: Record<DetailsShown, DetailsShown> = { warnings: 'all', all: 'none', none: 'warnings' };

interface Row {
  event: DaemonEvent;
  details: string[];
}

function EventsView({ live, width, height, keyState, nowMs }: ViewProps): ReactNode {
  const [scroll, setScroll] = useState<Scroll>({ follow: true });
  const [filter, setFilter] = useState<EventFilter>(NO_EVENT_FILTER);
  const [detailsShown, setDetailsShown] = useState<DetailsShown>('warnings');
  const events = filterEvents(live.events, filter);
  const page = Math.max(1, height - 2);
  const withDetails = (event: DaemonEvent): boolean => detailsShown === 'all' || (detailsShown === 'warnings' && event.level !== 'info');
  const rows: Row[] = events.map((event) => ({ event, details: withDetails(event) ? detailLines(event, width, page - 1) : [] }));
  const lastTop = firstOfLastPage(rows, page);
  const top = scroll.follow ? lastTop : Math.min(scroll.top, lastTop);
  const visible = fill(rows, top, page);
  const moveTo = (next: number): void => {
    const clamped = Math.max(0, Math.min(lastTop, next));
    setScroll(clamped >= lastTop ? { follow: true } : { follow: false, top: clamped });
  };
  const refilter = (next: EventFilter): void => {
    setFilter(next);
    setScroll({ follow: true });
  };

  useKeyScope(
    'events',
    'Events',
    [
      { keys: ['up', 'k'], label: '↑/k', description: 'scroll up one event', run: () => moveTo(top - 1) },
      { keys: ['down', 'j'], label: '↓/j', description: 'scroll down one event', hint: 'scroll', run: () => moveTo(top + 1) },
      { keys: ['pageup'], description: 'scroll up one page', run: () => moveTo(top - Math.max(1, visible.length)) },
      { keys: ['pagedown', ' '], label: 'PgDn/Space', description: 'scroll down one page', run: () => moveTo(top + Math.max(1, visible.length)) },
      { keys: ['home', 'g'], label: 'Home/g', description: 'jump to the oldest event', run: () => moveTo(0) },
      { keys: ['end', 'G'], label: 'End/G', description: 'jump to the newest and follow new events', hint: 'follow', run: () => setScroll({ follow: true }) },
      { keys: ['l'], description: 'filter by level: all → warn+error → error → warn → info', hint: 'level', run: () => refilter({ ...filter, levels: nextLevelStep(filter.levels) }) },
      { keys: ['t'], description: 'filter by type: all → each type in the list in turn', hint: 'type', run: () => refilter({ ...filter, type: nextType(filter.type, eventTypesIn(live.events, filter.type)) }) },
      { keys: ['x'], description: 'clear the level and type filters', run: () => refilter(NO_EVENT_FILTER) },
      { keys: ['d'], description: 'details (ids, attempt, target, error) under: warnings and errors → every event → none', run: () => setDetailsShown((d) => NEXT_DETAILS[d]) },
    ],
    keyState,
  );

  const filtered = isFiltered(filter);
  const count = filtered ? `${events.length} of ${live.events.length} · ${describeEventFilter(filter)}` : `${events.length}`;
  const where = scroll.follow || top >= lastTop ? 'following new events' : `held at ${top + 1}–${top + visible.length} of ${events.length} · End to follow`;
  // A date only shows for events of another day; then the column widens for it.
  const timeWidth = Math.max(TIME_WIDTH, ...visible.map((row) => formatClockOrDate(row.event.at, nowMs).length));
  const messageWidth = Math.max(0, width - timeWidth - LEVEL_WIDTH - TYPE_WIDTH - 7);

  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> EVENTS</Text>
        <Text>{`  ${count} · ${where}`}</Text>
      </Text>
      <Line width={width} text={` ${fit('TIME', timeWidth)}  ${fit('LEVEL', LEVEL_WIDTH)}  ${fit('TYPE', TYPE_WIDTH)}  MESSAGE`} dim />
      {visible.map((row) => (
        <EventRow key={row.event.id} row={row} width={width} time={fit(formatClockOrDate(row.event.at, nowMs), timeWidth)} messageWidth={messageWidth} />
      ))}
      {live.events.length === 0 ? <Line width={width} text=" No events yet; they appear here as the daemon reports them." dim /> : null}
      {live.events.length > 0 && events.length === 0 ? <Line width={width} text=" No events match the filter; l and t change it, x clears it." dim /> : null}
    </Box>
  );
}

function EventRow({ row, width, time, messageWidth }: { row: Row; width: number; time: string; messageWidth: number }): ReactNode {
  const { event } = row;
  const level = levelLabel(event.level);
  return (
    <>
      <Text wrap="truncate-end">
        {` ${time}  `}
        <Tinted tone={level.tone}>{fit(labelText(level), LEVEL_WIDTH)}</Tinted>
        {`  ${fit(event.type, TYPE_WIDTH)}  ${truncate(messageText(event), messageWidth)}`.trimEnd()}
      </Text>
      {row.details.map((line, i) => (
        <Line key={i} width={width} text={line} dim />
      ))}
    </>
  );
}

/** The message, then the process it came from when another process sharing the database sent it (what happened matters more in 80 columns). */
function messageText(event: DaemonEvent): string {
  const text = printable(event.message);
  return event.origin ? `${text} · from ${originText(event.origin)}` : text;
}

function detailLines(event: DaemonEvent, width: number, room: number): string[] {
  const text = printable(detailsText(event.details));
  if (text === '') return [];
  const lines = wrapLines(text, Math.max(1, width - DETAIL_INDENT.length), Math.max(1, Math.min(MAX_DETAIL_LINES, room)));
  return lines.map((line, i) => `${i === 0 ? DETAIL_INDENT : ' '.repeat(DETAIL_INDENT.length)}${line}`);
}

const rowHeight = (row: Row): number => 1 + row.details.length;

/** The first row of the page that ends with the newest event. */
function firstOfLastPage(rows: readonly Row[], page: number): number {
  let used = 0;
  for (let i = rows.length - 1; i >= 0; i -= 1) {
    used += rowHeight(rows[i]!);
    if (used > page) return Math.min(rows.length - 1, i + 1);
  }
  return 0;
}

/** The rows from `top` that fit in `page` lines (at least one, so a tall row still shows). */
function fill(rows: readonly Row[], top: number, page: number): Row[] {
  const out: Row[] = [];
  let used = 0;
  for (let i = top; i < rows.length; i += 1) {
    const h = rowHeight(rows[i]!);
    if (out.length > 0 && used + h > page) break;
    out.push(rows[i]!);
    used += h;
  }
  return out;
}

export const eventsView: ViewDefinition = {
  id: 'events',
  title: 'events',
  aliases: ['ev', 'log', 'logs'],
  description: 'live list of daemon events (every process on the database), newest at the bottom; filter by level and type',
  Component: EventsView,
};
