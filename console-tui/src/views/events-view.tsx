import { Fragment, useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { DaemonEvent } from '@portico/daemon/control';
import { describeEventFilter, detailsText, eventTypesIn, filterEvents, isFiltered, nextLevelStep, nextType, NO_EVENT_FILTER, originText, type EventFilter } from '@portico/daemon/control/event-filter';
import { layoutCells, layoutColumns, layoutLine, type ColumnSpec, type TableLayout } from '../format/columns.js';
import { formatClockOrDate } from '../format/duration.js';
import { printable, wrapLines } from '../format/fit.js';
import { labelText, levelLabel } from '../format/state-label.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import type { ViewDefinition, ViewProps } from './view.js';

const HEADERS = ['TIME', 'LEVEL', 'TYPE', 'MESSAGE'];
const LEVEL_COLUMN = 1;
const TYPE_COLUMN = 2;
const MESSAGE_COLUMN = 3;
/** A message longer than its column wraps onto this many lines at most (a job's or delivery's state is near its end). */
const MAX_MESSAGE_LINES = 3;
/** Narrow, the type column gives up cells (down to these) until the message has MESSAGE_ROOM. */
const TYPE_MIN = 15;
const MESSAGE_ROOM = 50;
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
  /** The message wrapped to its column: one line, or more when it is long. */
  message: string[];
  details: string[];
}

function EventsView({ live, width, height, keyState, nowMs }: ViewProps): ReactNode {
  const [scroll, setScroll] = useState<Scroll>({ follow: true });
  const [filter, setFilter] = useState<EventFilter>(NO_EVENT_FILTER);
  const [detailsShown, setDetailsShown] = useState<DetailsShown>('warnings');
  const events = filterEvents(live.events, filter);
  const page = Math.max(1, height - 2);
  const withDetails = (event: DaemonEvent): boolean => detailsShown === 'all' || (detailsShown === 'warnings' && event.level !== 'info');
  const layout = eventLayout(events, width, nowMs);
  const messageWidth = layout.widths[MESSAGE_COLUMN]!;
  const rows: Row[] = events.map((event) => ({
    event,
    message: wrapLines(messageText(event), messageWidth, MAX_MESSAGE_LINES),
    details: withDetails(event) ? detailLines(event, width, page - 1) : [],
  }));
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

  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> EVENTS</Text>
        <Text>{`  ${count} · ${where}`}</Text>
      </Text>
      <Line width={width} text={layoutLine(layout, HEADERS).trimEnd()} dim />
      {visible.map((row) => (
        <EventRow key={row.event.id} row={row} width={width} layout={layout} nowMs={nowMs} />
      ))}
      {live.events.length === 0 ? <Line width={width} text=" No events yet; they appear here as the daemon reports them." dim /> : null}
      {live.events.length > 0 && events.length === 0 ? <Line width={width} text=" No events match the filter; l and t change it, x clears it." dim /> : null}
    </Box>
  );
}

function EventRow({ row, width, layout, nowMs }: { row: Row; width: number; layout: TableLayout; nowMs: number }): ReactNode {
  const { event } = row;
  const level = levelLabel(event.level);
  const cells = layoutCells(layout, [formatClockOrDate(event.at, nowMs), labelText(level), event.type]).filter((c) => c.column !== MESSAGE_COLUMN);
  // The message's further lines start under its column.
  const messageStart = cells.reduce((at, c) => at + c.sep.length + c.text.length, 0) + layout.gap;
  return (
    <>
      <Text wrap="truncate-end">
        {cells.map((c) => (
          <Fragment key={c.column}>
            {c.sep}
            {c.column === LEVEL_COLUMN ? <Tinted tone={level.tone}>{c.text}</Tinted> : c.text}
          </Fragment>
        ))}
        {`${' '.repeat(layout.gap)}${row.message[0] ?? ''}`.trimEnd()}
      </Text>
      {row.message.slice(1).map((line, i) => (
        <Line key={`m${i}`} width={width} text={`${' '.repeat(messageStart)}${line}`} />
      ))}
      {row.details.map((line, i) => (
        <Line key={i} width={width} text={line} dim />
      ))}
    </>
  );
}

/**
 * Time, level, type and message in `width`: the type reads whole when there is room (120
 * columns); narrow, it keeps TYPE_MIN cells and the message gets the rest, wrapping onto
 * further lines, so what tells one event from the next (QUEUED, RUNNING, SUCCEEDED: the last
 * word of a daemon's message) stays on screen.
 */
function eventLayout(events: readonly DaemonEvent[], width: number, nowMs: number): TableLayout {
  const columns: ColumnSpec[] = [
    // A date only shows for events of another day; then the column widens for it.
    { header: HEADERS[0]!, cells: ['00:00:00', ...events.map((e) => formatClockOrDate(e.at, nowMs))], keep: 8 },
    { header: HEADERS[1]!, cells: [labelText(levelLabel('error')), ...events.map((e) => labelText(levelLabel(e.level)))], keep: 7 },
    { header: HEADERS[2]!, cells: events.map((e) => e.type), grow: true, keep: 1 },
    { header: HEADERS[3]!, cells: events.map(messageText), grow: true, rest: true, keep: 9 },
  ];
  const layout = layoutColumns(columns, width);
  const type = layout.widths[TYPE_COLUMN]!;
  const message = layout.widths[MESSAGE_COLUMN]!;
  const give = Math.min(type - TYPE_MIN, MESSAGE_ROOM - message);
  if (give <= 0) return layout;
  const widths = [...layout.widths];
  widths[TYPE_COLUMN] = type - give;
  widths[MESSAGE_COLUMN] = message + give;
  return { ...layout, widths };
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

const rowHeight = (row: Row): number => row.message.length + row.details.length;

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
