import { useEffect, useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { BackendHealthChangeView, BackendView } from '@portico/daemon/control';
import { plural } from '@portico/daemon/display';
import { formatClockOrDate } from '../format/duration.js';
import { cellsOf, layoutColumns, layoutLine, type ColumnSpec, type TableLayout } from '../format/columns.js';
import { cellWidth, fit, truncate } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { addChange, agoText, applyUpdate, backendLabel, latencyText, mergeRead, stateWord } from './backends-format.js';
import { Cells } from './table-cells.js';
import { lastEventOf, useControlQuery } from './use-control-query.js';
import type { ViewDefinition, ViewProps } from './view.js';

/** The state column (index in the table), tinted by state. */
const STATE_COLUMN = 1;

interface Data {
  backends: BackendView[];
  timeline: BackendHealthChangeView[];
}

function BackendsView({ live, source, nowMs, width, height, visible, keyState }: ViewProps): ReactNode {
  const [selected, setSelected] = useState(0);
  const [data, setData] = useState<Data | null>(null);
  const [resync, setResync] = useState(0);
  const api = source.api;
  const socket = source.subscriptions;
  const reloaded = lastEventOf(live.events, ['config.reloaded']);
  // Without a live socket (an older console source), state changes on the event bus still refresh the list.
  const changedWithoutSocket = socket ? null : lastEventOf(live.events, ['backend.health']);
  const query = useControlQuery<Data>(
    visible,
    api ? async () => ({ backends: await api.backends.list.query(), timeline: await api.backends.timeline.query() }) : null,
    [reloaded, changedWithoutSocket, resync, live.status.bootId],
  );
  useEffect(() => {
    const read = query.data;
    if (read) setData((shown) => mergeRead(shown, read));
  }, [query.data]);

  // Each finished check and state change, applied as it arrives; once the subscription is
  // (re)established the list is read again, so nothing that happened before it is missed.
  useEffect(() => {
    if (!visible || !socket) return;
    const subscription = socket.backends.changes.subscribe(undefined, {
      onStarted: () => setResync((n) => n + 1),
      onData: ({ data: update }) =>
        setData((d) => (d ? { backends: applyUpdate(d.backends, update), timeline: update.change ? addChange(d.timeline, update.change) : d.timeline } : d)),
    });
    return () => subscription.unsubscribe();
  }, [visible, socket]);

  const backends = data?.backends ?? [];
  const timeline = data?.timeline ?? [];
  const index = Math.min(selected, Math.max(0, backends.length - 1));
  const current = backends[index];
  // Title, error/summary, column header, detail, timeline header: 5 fixed lines.
  const room = Math.max(2, height - 5);
  const timelineHeight = Math.max(1, Math.min(timeline.length || 1, Math.floor(room / 3)));
  const listHeight = Math.max(1, room - timelineHeight);
  const top = Math.max(0, Math.min(index - Math.floor(listHeight / 2), backends.length - listHeight));
  const shownRows = Math.max(1, Math.min(listHeight, backends.length));

  useKeyScope(
    'backends',
    'Backends',
    [
      { keys: ['up', 'k'], label: '↑/k', description: 'previous backend', run: () => setSelected(Math.max(0, index - 1)) },
      { keys: ['down', 'j'], label: '↓/j', description: 'next backend', hint: 'move', run: () => setSelected(Math.min(backends.length - 1, index + 1)) },
    ],
    keyState,
  );

  const counts = (['healthy', 'degraded', 'unhealthy'] as const).map((s) => [s, backends.filter((b) => b.health.checked && b.health.state === s).length] as const).filter(([, n]) => n > 0);
  const summary = data ? `${plural(backends.length, 'backend')}${counts.map(([s, n]) => ` · ${n} ${s}`).join('')}` : query.loading ? 'loading…' : '';
  const rows = backends.map((b) => backendCells(b, nowMs));
  const { layout, headers } = backendLayout(rows, width);
  const nameWidth = Math.max(layout.widths[0]!, 8);
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> BACKENDS</Text>
        <Text>{`  ${summary}`}</Text>
      </Text>
      {query.error ? <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${query.error}`, width)}</Tinted></Text> : <Line width={width} text="" />}
      <Line width={width} text={layoutLine(layout, headers)} dim />
      <Box flexDirection="column" height={shownRows}>
        {backends.slice(top, top + listHeight).map((b, i) => {
          const tone = backendLabel(b).tone;
          return (
            <Text key={b.name} wrap="truncate-end" inverse={top + i === index}>
              <Cells layout={layout} cells={rows[top + i]!} tinted={[STATE_COLUMN]} tone={tone} />
            </Text>
          );
        })}
        {data && backends.length === 0 ? <Line width={width} text=" The active configuration defines no backend." dim /> : null}
      </Box>
      <Detail backend={current} width={width} />
      {/* The selected backend's line right under its table; the room the rows leave goes below it. */}
      <Box height={listHeight - shownRows} />
      <Line width={width} text={`── state changes (${timeline.length}, newest first) `.padEnd(width, '─')} dim />
      <Box flexDirection="column" height={timelineHeight}>
        {timeline.slice(0, timelineHeight).map((c, i) => {
          const to = backendLabel({ health: { state: c.to, checked: true } as BackendView['health'] });
          return (
            <Text key={`${c.at}-${c.backend}-${i}`} wrap="truncate-end">
              {` ${formatClockOrDate(c.at, nowMs)}  ${fit(c.backend, nameWidth)}  ${stateWord(c.from)} → `}
              <Tinted tone={to.tone}>{to.word}</Tinted>
              {c.error ? truncate(`  ${c.error}`, Math.max(0, width - nameWidth - 40)) : ''}
            </Text>
          );
        })}
        {data && timeline.length === 0 ? <Line width={width} text=" No state change yet." dim /> : null}
      </Box>
    </Box>
  );
}

const HEADERS = ['NAME', 'STATE', 'LAST CHECK', 'FAILURES', 'LATENCY', 'ORIGIN'];
const FAILURES_COLUMN = 3;
const ORIGIN_COLUMN = 5;

/**
 * The columns for `rows` in `width`, headed as the web dashboard heads them (FAILURES); when
 * that word would cut a name or an origin, FAIL gives them its four cells.
 */
function backendLayout(rows: readonly string[][], width: number): { layout: TableLayout; headers: string[] } {
  const whole = (layout: TableLayout): boolean => [0, ORIGIN_COLUMN].every((i) => layout.widths[i]! >= Math.max(...rows.map((r) => cellWidth(r[i]!)), 0));
  const layout = layoutColumns(backendColumns(rows, HEADERS), width);
  if (whole(layout)) return { layout, headers: HEADERS };
  const headers = HEADERS.map((h, i) => (i === FAILURES_COLUMN ? 'FAIL' : h));
  return { layout: layoutColumns(backendColumns(rows, headers), width), headers };
}

/** One backend's row: name, state, last check, failures, latency, origin. */
function backendCells(b: BackendView, nowMs: number): string[] {
  const label = backendLabel(b);
  return [b.name, `${label.glyph} ${label.word}`, b.health.checked ? agoText(b.health.lastCheckAt, nowMs) : '-', String(b.health.failures), latencyText(b.health.latencyMs), b.origin ?? '(url per request)'];
}

/** Name and origin share the spare width (an origin reads whole at 120 columns); narrow, latency, failures and check times go first, the state last of all. */
function backendColumns(rows: readonly string[][], headers: readonly string[]): ColumnSpec[] {
  return [
    { header: headers[0]!, cells: cellsOf(rows, 0), grow: true, keep: 8 },
    // The widest state's width always, so the columns do not shift when one changes.
    { header: headers[1]!, cells: [...cellsOf(rows, 1), '✗ unhealthy'], keep: 9 },
    { header: headers[2]!, cells: cellsOf(rows, 2), keep: 3 },
    { header: headers[3]!, cells: cellsOf(rows, 3), keep: 2 },
    { header: headers[4]!, cells: cellsOf(rows, 4), keep: 1 },
    { header: headers[5]!, cells: cellsOf(rows, 5), grow: true, min: 12, keep: 5 },
  ];
}

function Detail({ backend, width }: { backend: BackendView | undefined; width: number }): ReactNode {
  if (!backend) return <Line width={width} text="" />;
  const used = backend.usedBy.length > 0 ? `used by ${backend.usedBy.join(', ')}` : 'used by no endpoint';
  const gate = backend.useWhenUnhealthy ? ' · use_when_unhealthy' : '';
  if (backend.health.error) {
    return <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ${backend.name}: ${backend.health.error} · ${used}${gate}`, width)}</Tinted></Text>;
  }
  return <Line width={width} text={` ${backend.name}: ${used}${gate}`} dim />;
}

export const backendsView: ViewDefinition = {
  id: 'backends',
  title: 'backends',
  aliases: ['be', 'health'],
  description: 'gateway backends: health state (live), last check, failures, latency, state changes',
  Component: BackendsView,
};
