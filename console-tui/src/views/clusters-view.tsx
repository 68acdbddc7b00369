import { useEffect, useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { CdsClientView, ClustersList } from '@portico/daemon/control';
import { fit, truncate } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { ackState, endpointText, healthLabel, printable, short, subscriptionText, wrapLines } from './clusters-format.js';
import { lastEventOf, useControlQuery } from './use-control-query.js';
import type { ViewDefinition, ViewProps } from './view.js';

const TYPE_WIDTH = 10;
const HEALTH_WIDTH = 11;
const KIND_WIDTH = 5;
const SUBS_WIDTH = 10;
const ACK_WIDTH = 18;
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
    ? `version ${short(version)} · ${clusters.length} cluster${clusters.length === 1 ? '' : 's'}${unhealthy ? ` · ${unhealthy} unhealthy` : ''} · ${clients.length} client${clients.length === 1 ? '' : 's'} · grpc ${data.list.address ?? '-'}`
    : query.loading
      ? 'loading…'
      : '';
  const nameWidth = Math.max(8, Math.min(Math.floor(width / 4), Math.max(0, ...clusters.map((c) => c.name.length))));
  // The NACK's error detail takes what the columns leave, so node ids get at most 18 cells.
  const nodeWidth = Math.max(8, Math.min(18, Math.max(0, ...clients.map((c) => (printable(c.nodeId) || '(no id)').length))));

  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> CLUSTERS</Text>
        <Text>{`  ${summary}`}</Text>
      </Text>
      {query.error ? <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${query.error}`, width)}</Tinted></Text> : <Line width={width} text={data ? ` from ${data.list.source}${data.list.skipped.length ? ` · skipped (url per request): ${data.list.skipped.join(', ')}` : ''}` : ''} dim />}
      <Line width={width} text={` ${fit('NAME', nameWidth)}  ${fit('TYPE', TYPE_WIDTH)}  ${fit('HEALTH', HEALTH_WIDTH)}  ENDPOINT`} dim />
      <Box flexDirection="column" height={listHeight}>
        {clusters.slice(top, top + listHeight).map((c, i) => {
          const label = healthLabel(c.healthStatus);
          return (
            <Text key={c.name} wrap="truncate-end" inverse={top + i === index}>
              {` ${fit(c.name, nameWidth)}  ${fit(c.type, TYPE_WIDTH)}  `}
              <Tinted tone={label.tone}>{fit(`${label.glyph} ${label.word}`, HEALTH_WIDTH)}</Tinted>
              {`  ${endpointText(c)}`}
            </Text>
          );
        })}
        {data && clusters.length === 0 ? <Line width={width} text=" No cluster: the configuration has no backend with an origin." dim /> : null}
      </Box>
      <Line width={width} text={rule(`── clients (${clients.length}) `, width)} dim />
      <Line width={width} text={` ${fit('NODE', nodeWidth)}  ${fit('KIND', KIND_WIDTH)}  ${fit('SUBS', SUBS_WIDTH)}  ${fit('SENT', 8)}  ${fit('ACK/NACK', ACK_WIDTH)}`} dim />
      <Box flexDirection="column" height={clientsHeight}>
        {clients.slice(0, clientsHeight).map((c) => {
          const ack = ackState(c, version, nowMs);
          const nackDetail = ack.tone === 'bad' && c.lastNack ? `  ${printable(c.lastNack.message)}` : '';
          return (
            <Text key={c.streamId} wrap="truncate-end">
              {` ${fit(printable(c.nodeId) || '(no id)', nodeWidth)}  ${fit(c.kind, KIND_WIDTH)}  ${fit(subscriptionText(c), SUBS_WIDTH)}  ${fit(short(c.lastVersionSent), 8)}  `}
              <Tinted tone={ack.tone}>{`${fit(ack.text, ACK_WIDTH)}${nackDetail}`}</Tinted>
            </Text>
          );
        })}
        {data && clients.length === 0 ? <Line width={width} text=" No proxy is connected." dim /> : null}
      </Box>
      {nackLines.length === 0 ? <Line width={width} text="" /> : nackLines.map((line, i) => <Text key={i} wrap="truncate-end"><Tinted tone="bad">{line}</Tinted></Text>)}
    </Box>
  );
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
