import { useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { DaemonEvent } from '@portico/daemon/control';
import { formatClock } from '../format/duration.js';
import { fit, truncate } from '../format/fit.js';
import { labelText, levelLabel } from '../format/state-label.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import type { ViewDefinition, ViewProps } from './view.js';

const TIME_WIDTH = 8;
const LEVEL_WIDTH = 7;
const TYPE_WIDTH = 15;

/** Where the list is: pinned to the newest event, or held at a first visible row. */
type Scroll = { follow: true } | { follow: false; top: number };

function EventsView({ live, width, height, keyState }: ViewProps): ReactNode {
  const { events } = live;
  const [scroll, setScroll] = useState<Scroll>({ follow: true });
  const page = Math.max(1, height - 2);
  const lastTop = Math.max(0, events.length - page);
  const top = scroll.follow ? lastTop : Math.min(scroll.top, lastTop);
  const moveTo = (next: number): void => {
    const clamped = Math.max(0, Math.min(lastTop, next));
    setScroll(clamped >= lastTop ? { follow: true } : { follow: false, top: clamped });
  };

  useKeyScope(
    'events',
    'Events',
    [
      { keys: ['up', 'k'], label: '↑/k', description: 'scroll up one event', run: () => moveTo(top - 1) },
      { keys: ['down', 'j'], label: '↓/j', description: 'scroll down one event', hint: 'scroll', run: () => moveTo(top + 1) },
      { keys: ['pageup'], description: 'scroll up one page', run: () => moveTo(top - page) },
      { keys: ['pagedown', ' '], label: 'PgDn/Space', description: 'scroll down one page', run: () => moveTo(top + page) },
      { keys: ['home', 'g'], label: 'Home/g', description: 'jump to the oldest event', run: () => moveTo(0) },
      { keys: ['end', 'G'], label: 'End/G', description: 'jump to the newest and follow new events', hint: 'follow', run: () => setScroll({ follow: true }) },
    ],
    keyState,
  );

  const visible = events.slice(top, top + page);
  const where = scroll.follow || top >= lastTop ? 'following new events' : `held at ${top + 1}–${top + visible.length} of ${events.length} · End to follow`;
  const messageWidth = Math.max(0, width - TIME_WIDTH - LEVEL_WIDTH - TYPE_WIDTH - 7);

  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> EVENTS</Text>
        <Text>{`  ${events.length} · ${where}`}</Text>
      </Text>
      <Line width={width} text={` ${fit('TIME', TIME_WIDTH)}  ${fit('LEVEL', LEVEL_WIDTH)}  ${fit('TYPE', TYPE_WIDTH)}  MESSAGE`} dim />
      {visible.map((event) => (
        <EventLine key={event.id} event={event} messageWidth={messageWidth} />
      ))}
      {events.length === 0 ? <Line width={width} text=" No events yet; they appear here as the daemon reports them." dim /> : null}
    </Box>
  );
}

function EventLine({ event, messageWidth }: { event: DaemonEvent; messageWidth: number }): ReactNode {
  const level = levelLabel(event.level);
  return (
    <Text wrap="truncate-end">
      {` ${fit(formatClock(event.at), TIME_WIDTH)}  `}
      <Tinted tone={level.tone}>{fit(labelText(level), LEVEL_WIDTH)}</Tinted>
      {`  ${fit(event.type, TYPE_WIDTH)}  ${truncate(event.message, messageWidth)}`.trimEnd()}
    </Text>
  );
}

export const eventsView: ViewDefinition = {
  id: 'events',
  title: 'events',
  aliases: ['ev', 'log', 'logs'],
  description: 'live list of daemon events, newest at the bottom',
  Component: EventsView,
};
