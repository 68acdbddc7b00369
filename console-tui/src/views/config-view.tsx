import { useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { ActiveConfigFile, ConfigStatus, ReloadRecord, RoutesView } from '@portico/daemon/control';
import { formatClock } from '../format/duration.js';
import { fit, truncate } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { accessControlLines, type ControlLine } from './access-control-lines.js';
import { diagnosticLine, durationText, fileName, outcomeText, RESULT_LABEL } from './config-format.js';
import { lastEventOf, problemText, useControlQuery } from './use-control-query.js';
import type { ViewDefinition, ViewProps } from './view.js';

const TIME_WIDTH = 8;
const TRIGGER_WIDTH = 7;
const RESULT_WIDTH = 9;
const DURATION_WIDTH = 8;
/** Problems of the last reload shown above the source; the rest are in the history's record. */
const SHOWN_DIAGNOSTICS = 3;
/** A login provider's state changes without a config event (a failed refresh); re-read the routes pane this often. */
const ROUTES_REFRESH_MS = 5_000;
/** Route rows the access controls above the table leave at least. */
const MIN_ROUTE_ROWS = 3;

interface Data {
  status: ConfigStatus;
  history: ReloadRecord[];
  active: ActiveConfigFile[];
  routes: RoutesView;
}

type Pane = 'source' | 'history' | 'routes';
type Banner = { tone: 'good' | 'bad' | 'plain'; text: string } | null;

function ConfigView({ live, source, nowMs, width, height, visible, keyState }: ViewProps): ReactNode {
  const [pane, setPane] = useState<Pane>('source');
  const [fileIndex, setFileIndex] = useState(0);
  const [scroll, setScroll] = useState(0);
  const [banner, setBanner] = useState<Banner>(null);
  const [bump, setBump] = useState(0);
  const api = source.api;
  const reloaded = lastEventOf(live.events, ['config.reloaded']);
  const routesTick = pane === 'routes' ? Math.floor(nowMs / ROUTES_REFRESH_MS) : 0;
  const query = useControlQuery<Data>(
    visible,
    api
      ? async () => {
          const [status, history, active, routes] = await Promise.all([api.config.status.query(), api.config.history.query(), api.config.active.query(), api.config.routes.query()]);
          return { status, history, active, routes };
        }
      : null,
    [reloaded, bump, routesTick, live.status.bootId],
  );

  const data = query.data;
  const last = data?.status.last ?? null;
  const problems = last && last.result !== 'applied' ? last.diagnostics.filter((d) => d.severity === 'error') : [];
  const shownProblems = problems.slice(0, SHOWN_DIAGNOSTICS);
  const file = data?.active[Math.min(fileIndex, Math.max(0, (data?.active.length ?? 1) - 1))];
  const lines = file?.text?.split('\n') ?? [];
  if (lines.at(-1) === '') lines.pop();
  const rows = pane === 'source' ? lines.length : pane === 'history' ? (data?.history.length ?? 0) : (data?.routes.routes.length ?? 0);
  // Title, last reload, problems, pane header, column header (history, routes), access controls (routes), bottom line.
  const fixedHeight = 4 + shownProblems.length + (pane === 'source' ? 0 : 1);
  const controlLines = pane === 'routes' ? accessControlLines(data?.routes.accessControls ?? [], width, nowMs, height - fixedHeight - MIN_ROUTE_ROWS) : [];
  const bodyHeight = Math.max(1, height - fixedHeight - controlLines.length);
  const maxScroll = Math.max(0, rows - bodyHeight);
  const top = Math.min(scroll, maxScroll);
  const scrollTo = (to: number): void => setScroll(Math.max(0, Math.min(maxScroll, to)));

  const reload = (): void => {
    if (!api) return;
    setBanner({ tone: 'plain', text: 'reloading…' });
    api.config.reload.mutate().then(
      (record) => {
        setBanner({ tone: record.result === 'applied' ? 'good' : 'bad', text: `reload ${record.result} in ${durationText(record.durationMs)}: ${outcomeText(record)}` });
        setBump((b) => b + 1);
      },
      (error: unknown) => setBanner({ tone: 'bad', text: `reload failed: ${problemText(error)}` }),
    );
  };

  useKeyScope(
    'config',
    'Config',
    [
      { keys: ['r'], description: 'reload the configuration now and show the result', hint: 'reload', run: reload },
      { keys: ['h'], description: 'switch between the active source and the reload history', hint: pane === 'source' ? 'history' : 'source', run: () => (setPane((p) => (p === 'source' ? 'history' : 'source')), setScroll(0)) },
      { keys: ['a'], description: 'routes and the access controls guarding each (a again: back to the source)', hint: pane === 'routes' ? 'source' : 'access', run: () => (setPane((p) => (p === 'routes' ? 'source' : 'routes')), setScroll(0)) },
      { keys: ['f'], description: 'next configuration file', run: () => (setFileIndex((i) => (data && data.active.length > 0 ? (i + 1) % data.active.length : 0)), setScroll(0)) },
      { keys: ['up', 'k'], label: '↑/k', description: 'scroll up', run: () => scrollTo(top - 1) },
      { keys: ['down', 'j'], label: '↓/j', description: 'scroll down', hint: 'scroll', run: () => scrollTo(top + 1) },
      { keys: ['pageup'], description: 'up one page', run: () => scrollTo(top - bodyHeight) },
      { keys: ['pagedown', ' '], label: 'PgDn/Space', description: 'down one page', run: () => scrollTo(top + bodyHeight) },
      { keys: ['home', 'g'], label: 'Home/g', description: 'top', run: () => scrollTo(0) },
      { keys: ['end', 'G'], label: 'End/G', description: 'bottom', run: () => scrollTo(maxScroll) },
      { keys: ['escape'], description: 'dismiss the reload message', run: () => setBanner(null) },
    ],
    keyState,
  );

  const files = data ? `${data.status.files.map((f) => fileName(f.path)).join(', ')} · applied ${data.status.appliedAt ? formatClock(data.status.appliedAt) : 'never'}` : query.loading ? 'loading…' : '';
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> CONFIG</Text>
        <Text>{truncate(`  ${files}`, Math.max(0, width - 7))}</Text>
      </Text>
      {query.error ? <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${query.error}`, width)}</Tinted></Text> : <LastReload record={last} width={width} />}
      {shownProblems.map((d, i) => (
        <Text key={i} wrap="truncate-end"><Tinted tone="bad">{truncate(`   ${diagnosticLine(d)}`, width)}</Tinted></Text>
      ))}
      {pane === 'source' ? (
        <SourcePane file={file} count={data?.active.length ?? 0} index={fileIndex} lines={lines} top={top} height={bodyHeight} width={width} />
      ) : pane === 'history' ? (
        <HistoryPane history={data?.history ?? []} top={top} height={bodyHeight} width={width} />
      ) : (
        <RoutesPane routes={data?.routes ?? { routes: [], accessControls: [] }} controlLines={controlLines} top={top} height={bodyHeight} width={width} />
      )}
      {banner ? <Text wrap="truncate-end"><Tinted tone={banner.tone}>{truncate(` ${banner.text}`, width)}</Tinted></Text> : <Line width={width} text="" />}
    </Box>
  );
}

function LastReload({ record, width }: { record: ReloadRecord | null; width: number }): ReactNode {
  if (!record) return <Line width={width} text="" />;
  const label = RESULT_LABEL[record.result];
  const keeps = record.result === 'applied' ? '' : ' · the previous config keeps serving';
  return (
    <Text wrap="truncate-end">
      <Tinted tone={label.tone}>{truncate(` ${label.glyph} ${record.result} (${record.trigger}) ${formatClock(record.startedAt)}${record.result === 'applied' ? `: ${outcomeText(record)}` : keeps}`, width)}</Tinted>
    </Text>
  );
}

function SourcePane(props: { file: ActiveConfigFile | undefined; count: number; index: number; lines: string[]; top: number; height: number; width: number }): ReactNode {
  const { file, count, lines, top, height, width } = props;
  const number = String(Math.max(1, lines.length)).length;
  const heading = file
    ? `── ${fileName(file.path)}${count > 1 ? ` (${Math.min(props.index, count - 1) + 1}/${count}, f: next)` : ''} · ${file.redacted} secret${file.redacted === 1 ? '' : 's'} hidden · sha256 ${file.sha256.slice(0, 12)} `
    : '── no configuration applied ';
  return (
    <>
      <Line width={width} text={heading + '─'.repeat(Math.max(0, width - heading.length))} dim />
      <Box flexDirection="column" height={height}>
        {file && file.text === null ? <Line width={width} text={` ${file.note ?? 'not shown'}`} dim /> : null}
        {lines.slice(top, top + height).map((l, i) => (
          <Text key={top + i} wrap="truncate-end">
            <Text dimColor>{`${String(top + i + 1).padStart(number)} │ `}</Text>
            {truncate(l.replace(/\t/g, '  '), Math.max(1, width - number - 3)) || ' '}
          </Text>
        ))}
      </Box>
    </>
  );
}

function HistoryPane({ history, top, height, width }: { history: ReloadRecord[]; top: number; height: number; width: number }): ReactNode {
  const diffWidth = Math.max(8, width - TIME_WIDTH - TRIGGER_WIDTH - RESULT_WIDTH - DURATION_WIDTH - 9);
  return (
    <>
      <Line width={width} text={`── reload history (${history.length}, newest first) ${'─'.repeat(width)}`} dim />
      <Line width={width} text={` ${fit('TIME', TIME_WIDTH)}  ${fit('TRIGGER', TRIGGER_WIDTH)}  ${fit('RESULT', RESULT_WIDTH)}  ${fit('DURATION', DURATION_WIDTH)}  DIFF`} dim />
      <Box flexDirection="column" height={height}>
        {history.slice(top, top + height).map((r) => {
          const label = RESULT_LABEL[r.result];
          return (
            <Text key={r.id} wrap="truncate-end">
              {` ${fit(formatClock(r.startedAt), TIME_WIDTH)}  ${fit(r.trigger, TRIGGER_WIDTH)}  `}
              <Tinted tone={label.tone}>{fit(`${label.glyph} ${r.result}`, RESULT_WIDTH)}</Tinted>
              {`  ${fit(durationText(r.durationMs), DURATION_WIDTH)}  ${fit(outcomeText(r), diffWidth)}`}
            </Text>
          );
        })}
      </Box>
    </>
  );
}

const KIND_WIDTH = 8;
const METHODS_WIDTH = 9;

/** The access controls (login controls with their provider's state), then each route with the controls that guard it (after inheritance and disable_access_control). */
function RoutesPane({ routes, controlLines, top, height, width }: { routes: RoutesView; controlLines: ControlLine[]; top: number; height: number; width: number }): ReactNode {
  const open = routes.routes.filter((r) => r.guards.length === 0).length;
  const longest = routes.routes.reduce((n, r) => Math.max(n, r.path.length), 5);
  const pathWidth = Math.max(10, Math.min(longest, 40, Math.floor((width - KIND_WIDTH - METHODS_WIDTH - 10) / 2)));
  const guardWidth = Math.max(8, width - pathWidth - KIND_WIDTH - METHODS_WIDTH - 8);
  return (
    <>
      <Line width={width} text={`── routes (${routes.routes.length}, ${open} open) and their access controls ${'─'.repeat(width)}`} dim />
      {controlLines.map((line, i) => (
        <Text key={i} wrap="truncate-end">
          {line.lead}
          {line.tone ? <Tinted tone={line.tone}>{line.text}</Tinted> : line.text}
        </Text>
      ))}
      <Line width={width} text={` ${fit('ROUTE', pathWidth)}  ${fit('KIND', KIND_WIDTH)}  ${fit('METHODS', METHODS_WIDTH)}  GUARDED BY`} dim />
      <Box flexDirection="column" height={height}>
        {routes.routes.slice(top, top + height).map((r, i) => {
          // Labels only: their kinds are listed above the table.
          const guards = r.guards.length === 0 ? 'open' : r.guards.map((g) => g.label).join(', ');
          const permission = r.permission === null ? '' : ` · permission ${typeof r.permission === 'string' ? r.permission : Object.entries(r.permission).map(([m, p]) => `${m}=${p}`).join(' ')}`;
          const methods = r.methods.length >= 7 ? '*' : r.methods.join(',');
          return (
            <Text key={`${top + i}`} wrap="truncate-end">
              {` ${fit(r.path, pathWidth)}  ${fit(r.kind, KIND_WIDTH)}  ${fit(methods, METHODS_WIDTH)}  `}
              {r.guards.length === 0 ? <Tinted tone="busy">{fit(guards + permission, guardWidth)}</Tinted> : fit(guards + permission, guardWidth)}
            </Text>
          );
        })}
      </Box>
    </>
  );
}

export const configView: ViewDefinition = {
  id: 'config',
  title: 'config',
  aliases: ['cfg', 'reload'],
  description: 'gateway configuration: active source (secrets ***), last reload, history, routes with their access controls (a); r reloads',
  Component: ConfigView,
};
