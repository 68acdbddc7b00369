import { useEffect, useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { CdsClientView, ClustersList, ClusterView } from '@portico/daemon/control';
import { plural } from '@portico/daemon/display';
import { cellsOf, layoutColumns, layoutLine, type ColumnSpec } from '../format/columns.js';
import { truncate } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { ackState, endpointText, healthLabel, printable, short, subscriptionText, wrapLines } from './clusters-format.js';
import { Cells } from './table-cells.js';
import { lastEventOf, useControlQuery } from './use-control-query.js';
import type { ViewDefinition, ViewProps } from './view.js';

/** The newest NACK's error detail wraps to at most this many lines. */
const MAX_NACK_LINES = 3;

interface Data {
  list: ClustersList;
  clients: CdsClientView[];
}

function ClustersView({ live, source, nowMs, width, height, visible, keyState }: ViewProps): ReactNode {
  const [selected, setSelected] = useState(0);
  const [tick, setTick] = useState(0);
  const api = source.api;
  const socket = source.subscriptions;
  // Without a live socket, snapshot and NACK events on the event bus still refresh the view.
  const changedWithoutSocket = socket ? null : lastEventOf(live.events, ['cds.snapshot', 'cds.nack', 'config.reloaded', 'backend.health']);
  const query = useControlQuery<Data>(
    visible,
    api ? async () => ({ list: await api.clusters.list.query(), clients: await api.clusters.clients.query() }) : null,
    [changedWithoutSocket, tick, live.status.bootId],
  );
  const [data, setData] = useState<Data | null>(null);
  useEffect(() => {
    if (query.data) setData(query.data);
  }, [query.data]);

  // Each snapshot or client change (coalesced by the daemon) triggers one read of both lists.
  useEffect(() => {
    if (!visible || !socket) return;
    const subscription = socket.clusters.changes.subscribe(undefined, {
      onStarted: () => setTick((n) => n + 1),
      onData: () => setTick((n) => n + 1),
    });
    return () => subscription.unsubscribe();
  }, [visible, socket]);

  const clusters = data?.list.clusters ?? [];
  const clients = data?.clients ?? [];
  const index = Math.min(selected, Math.max(0, clusters.length - 1));
  useKeyScope(
    'clusters',
    'Clusters',
    [
      { keys: ['up', 'k'], label: '↑/k', description: 'previous cluster', run: () => setSelected(Math.max(0, index - 1)) },
      { keys: ['down', 'j'], label: '↓/j', description: 'next cluster', hint: 'move', run: () => setSelected(Math.min(clusters.length - 1, index + 1)) },
    ],
    keyState,
  );

  const nackLines = newestNackLines(clients, width, MAX_NACK_LINES);
  // Title, error, cluster header, clients rule, clients header: 5 fixed lines, plus the newest NACK.
  const room = Math.max(2, height - 5 - Math.max(1, nackLines.length));
  const clientsHeight = Math.max(1, Math.min(Math.max(1, clients.length), Math.floor(room / 2)));
  const listHeight = Math.max(1, room - clientsHeight);
  const top = Math.max(0, Math.min(index - Math.floor(listHeight / 2), clusters.length - listHeight));
  const version = data?.list.version ?? '';
  const unhealthy = clusters.filter((c) => c.healthStatus === 'UNHEALTHY').length;
  const summary = data
    ? `version ${short(version)} · ${plural(clusters.length, 'cluster')}${unhealthy ? ` · ${unhealthy} unhealthy` : ''} · ${plural(clients.length, 'client')} · grpc ${data.list.address ?? '-'}`
    : query.loading
      ? 'loading…'
      : '';
  const clusterRows = clusters.map(clusterCells);
  const clusterLayout = layoutColumns(clusterColumns(clusterRows), width);
  const clientRows = clients.map((c) => clientCells(c, version, nowMs));
  const clientLayout = layoutColumns(clientColumns(clientRows), width);

  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> CLUSTERS</Text>
        <Text>{`  ${summary}`}</Text>
      </Text>
      {query.error ? <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${query.error}`, width)}</Tinted></Text> : <Line width={width} text={data ? ` from ${data.list.source}${data.list.skipped.length ? ` · skipped (url per request): ${data.list.skipped.join(', ')}` : ''}` : ''} dim />}
      <Line width={width} text={layoutLine(clusterLayout, CLUSTER_HEADERS)} dim />
      <Box flexDirection="column" height={listHeight}>
        {clusters.slice(top, top + listHeight).map((c, i) => (
          <Text key={c.name} wrap="truncate-end" inverse={top + i === index}>
            <Cells layout={clusterLayout} cells={clusterRows[top + i]!} tinted={[HEALTH_COLUMN]} tone={healthLabel(c.healthStatus).tone} />
          </Text>
        ))}
        {data && clusters.length === 0 ? <Line width={width} text=" No cluster: the configuration has no backend with an origin." dim /> : null}
      </Box>
      <Line width={width} text={rule(`── clients (${clients.length}) `, width)} dim />
      <Line width={width} text={layoutLine(clientLayout, CLIENT_HEADERS)} dim />
      <Box flexDirection="column" height={clientsHeight}>
        {clients.slice(0, clientsHeight).map((c, i) => (
          <Text key={c.streamId} wrap="truncate-end">
            <Cells layout={clientLayout} cells={clientRows[i]!} tinted={[ACK_COLUMN, NACK_COLUMN]} tone={ackState(c, version, nowMs).tone} />
          </Text>
        ))}
        {data && clients.length === 0 ? <Line width={width} text=" No proxy is connected." dim /> : null}
      </Box>
      {nackLines.length === 0 ? <Line width={width} text="" /> : nackLines.map((line, i) => <Text key={i} wrap="truncate-end"><Tinted tone="bad">{line}</Tinted></Text>)}
    </Box>
  );
}

const CLUSTER_HEADERS = ['NAME', 'TYPE', 'HEALTH', 'ENDPOINT'];
const HEALTH_COLUMN = 2;
const CLIENT_HEADERS = ['NODE', 'KIND', 'SUBS', 'SENT', 'ACK/NACK', 'ERROR'];
const ACK_COLUMN = 4;
const NACK_COLUMN = 5;

/** A backend without beta_health is never checked: its health says so, as the web's and the Backends view's do. */
function clusterCells(c: ClusterView): string[] {
  const label = healthLabel(c.healthStatus);
  return [c.name, c.type, `${label.glyph} ${label.word}${c.healthChecked ? '' : ' not checked'}`, endpointText(c)];
}

/** Name and endpoint share the spare width; narrow, the type goes first and the health last. */
function clusterColumns(rows: readonly string[][]): ColumnSpec[] {
  return [
    { header: CLUSTER_HEADERS[0]!, cells: cellsOf(rows, 0), grow: true, keep: 8 },
    { header: CLUSTER_HEADERS[1]!, cells: [...cellsOf(rows, 1), 'STRICT_DNS'], keep: 3 },
    { header: CLUSTER_HEADERS[2]!, cells: [...cellsOf(rows, 2), '✗ UNHEALTHY'], keep: 9 },
    { header: CLUSTER_HEADERS[3]!, cells: cellsOf(rows, 3), grow: true, min: 12, keep: 5 },
  ];
}

/** One open stream: node, kind, subscriptions, last version sent, ACK/NACK state, and the NACK's error detail last. */
function clientCells(c: CdsClientView, version: string, nowMs: number): string[] {
  const ack = ackState(c, version, nowMs);
  const nackDetail = ack.tone === 'bad' && c.lastNack ? printable(c.lastNack.message) : '';
  return [printable(c.nodeId) || '(no id)', c.kind, subscriptionText(c), short(c.lastVersionSent), ack.text, nackDetail];
}

/** The error column is there only while a NACK stands, and takes what the others leave. */
function clientColumns(rows: readonly string[][]): ColumnSpec[] {
  const errors = cellsOf(rows, NACK_COLUMN);
  return [
    { header: CLIENT_HEADERS[0]!, cells: cellsOf(rows, 0), grow: true, keep: 8 },
    { header: CLIENT_HEADERS[1]!, cells: [...cellsOf(rows, 1), 'delta'], keep: 2 },
    { header: CLIENT_HEADERS[2]!, cells: cellsOf(rows, 2), grow: true, min: 4, keep: 3 },
    { header: CLIENT_HEADERS[3]!, cells: [...cellsOf(rows, 3), '01234567'], keep: 4 },
    { header: CLIENT_HEADERS[4]!, cells: [...cellsOf(rows, 4), 'NACK 3f9a1c 59m 59s'], keep: 9 },
    ...(errors.some((e) => e !== '') ? [{ header: CLIENT_HEADERS[5]!, cells: errors, grow: true, rest: true, min: 10, keep: 1 }] : []),
  ];
}

/** A heading drawn as a rule exactly `width` cells wide (no `…` at the end). */
function rule(heading: string, width: number): string {
  return heading + '─'.repeat(Math.max(0, width - heading.length));
}

/** The newest NACK still standing, wrapped to `maxLines` lines: its error detail rarely fits in the table. */
function newestNackLines(clients: readonly CdsClientView[], width: number, maxLines: number): string[] {
  const nacked = clients.filter((c) => c.lastNack && (!c.lastAck || c.lastNack.at >= c.lastAck.at));
  const newest = nacked.sort((a, b) => (a.lastNack!.at < b.lastNack!.at ? 1 : -1))[0];
  if (!newest?.lastNack) return [];
  const n = newest.lastNack;
  return wrapLines(` NACK from ${printable(newest.nodeId) || '(no id)'} of ${short(n.version)} (code ${n.code}): ${printable(n.message)}`, width, maxLines);
}

export const clustersView: ViewDefinition = {
  id: 'clusters',
  title: 'clusters',
  aliases: ['cds', 'cl'],
  description: 'cluster discovery: clusters with endpoint health (live), connected proxies with their ACK/NACK',
  Component: ClustersView,
};
