import type { ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { SystemStatus } from '@portico/daemon/control';
import { formatClockOrDate, formatDuration } from '../format/duration.js';
import { fit, truncate } from '../format/fit.js';
import { componentLabel, labelText } from '../format/state-label.js';
import { componentRows, storeText, type ComponentRow } from '../format/status-text.js';
import type { LiveState } from '../live/live-store.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { DeliveryCountsText, useDeliveryCounts } from './deliveries-counts.js';
import type { ViewDefinition, ViewProps } from './view.js';

const INDENT = '   ';
const STATE_WIDTH = 12;
const AGE_WIDTH = 8;

/** Uptime as of `nowMs`: the daemon's figure plus the time since we read it (the shell stops `nowMs` while disconnected). */
export function liveUptime(live: LiveState, nowMs: number): number {
  const elapsed = Math.max(0, nowMs - live.statusReadAt) / 1000;
  return live.status.uptimeSeconds + elapsed;
}

function StatusView({ live, source, visible, nowMs, width, height }: ViewProps): ReactNode {
  const { status } = live;
  const deliveries = useDeliveryCounts({ live, source, visible, nowMs });
  const rows = componentRows(status.components, nowMs);
  const facts: Array<[string, string]> = [
    ['version', `${status.version} · mode ${status.mode} · pid ${status.pid}`],
    ['uptime', `${formatDuration(liveUptime(live, nowMs))} (started ${formatClockOrDate(status.startedAt, nowMs)})`],
    ['store', storeText(status.store)],
    ['boot', status.bootId],
  ];
  const tableRoom = Math.max(0, height - facts.length - (deliveries ? 1 : 0) - 4);
  const shown = rows.length > tableRoom ? rows.slice(0, Math.max(0, tableRoom - 1)) : rows;
  const hidden = rows.length - shown.length;
  const nameWidth = Math.min(20, Math.max(9, ...rows.map((r) => r.name.length)));
  const detailWidth = Math.max(0, width - INDENT.length - nameWidth - STATE_WIDTH - AGE_WIDTH - 6);

  return (
    <Box flexDirection="column" width={width} height={height}>
      <Line width={width} text=" DAEMON" bold />
      {facts.map(([name, value]) => (
        <Line key={name} width={width} text={`${INDENT}${name.padEnd(8)} ${value}`} />
      ))}
      {deliveries ? (
        <Text wrap="truncate-end">
          {`${INDENT}${'webhooks'.padEnd(8)} `}
          <DeliveryCountsText counts={deliveries} width={Math.max(0, width - INDENT.length - 9)} />
        </Text>
      ) : null}
      <Line width={width} text="" />
      <Text wrap="truncate-end">
        <Text bold> COMPONENTS</Text>
        <Text>{`  ${rows.length}`}</Text>
        <Summary components={status.components} />
      </Text>
      {tableRoom > 0 ? (
        <Line width={width} text={`${INDENT}${fit('NAME', nameWidth)}  ${fit('STATE', STATE_WIDTH)}  ${fit('FOR', AGE_WIDTH)}  DETAIL`} dim />
      ) : null}
      {shown.map((row) => (
        <ComponentLine key={row.name} row={row} nameWidth={nameWidth} detailWidth={detailWidth} />
      ))}
      {hidden > 0 ? <Line width={width} text={`${INDENT}… ${hidden} more (enlarge the terminal to see them)`} dim /> : null}
      {rows.length === 0 ? <Line width={width} text={`${INDENT}(no components registered yet)`} dim /> : null}
    </Box>
  );
}

function Summary({ components }: { components: SystemStatus['components'] }): ReactNode {
  const counts = new Map<string, number>();
  for (const c of components) counts.set(c.state, (counts.get(c.state) ?? 0) + 1);
  return [...counts].map(([state, count]) => {
    const label = componentLabel(state as SystemStatus['components'][number]['state']);
    return (
      <Text key={state}>
        {' · '}
        <Tinted tone={label.tone}>{`${label.glyph} ${count} ${label.word}`}</Tinted>
      </Text>
    );
  });
}

function ComponentLine({ row, nameWidth, detailWidth }: { row: ComponentRow; nameWidth: number; detailWidth: number }): ReactNode {
  return (
    <Text wrap="truncate-end">
      {`${INDENT}${fit(row.name, nameWidth)}  `}
      <Tinted tone={row.label.tone}>{fit(labelText(row.label), STATE_WIDTH)}</Tinted>
      {`  ${fit(row.age, AGE_WIDTH)}  ${truncate(row.detail, detailWidth)}`.trimEnd()}
    </Text>
  );
}

export const statusView: ViewDefinition = {
  id: 'status',
  title: 'status',
  aliases: ['st', 'home'],
  description: 'daemon facts and the state of each component',
  Component: StatusView,
};
