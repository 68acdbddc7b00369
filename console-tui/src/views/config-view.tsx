import { useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { ActiveConfigFile, ConfigStatus, ReloadRecord, RoutesView } from '@portico/daemon/control';
import { formatClockOrDate } from '../format/duration.js';
import { fit, truncate } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { accessControlLines, type ControlLine } from './access-control-lines.js';
import { plural, reloadLabel, tookText } from '@portico/daemon/display';
import { fileName, outcomeText, problemRows, type ProblemRow } from './config-format.js';
import { lastEventOf, problemText, useControlQuery } from './use-control-query.js';
import type { ViewDefinition, ViewProps } from './view.js';

const TIME_WIDTH = 8;
const TRIGGER_WIDTH = 7;
const RESULT_WIDTH = 9;
const DURATION_WIDTH = 8;
/** Rows the source, history or routes pane keeps at least before the first problem's excerpt is left out. */
const MIN_BODY_ROWS = 6;
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

type Pane = 'source' | 'history' | 'routes' | 'problems';
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
  // Errors of a rejected reload, cause first as the daemon sorts them; an applied one may carry warnings.
  const diagnostics = last?.diagnostics ?? [];
  const problems = last && last.result !== 'applied' ? diagnostics.filter((d) => d.severity === 'error') : [];
  const file = data?.active[Math.min(fileIndex, Math.max(0, (data?.active.length ?? 1) - 1))];
  const lines = file?.text?.split('\n') ?? [];
  if (lines.at(-1) === '') lines.pop();
  const problemList = pane === 'problems' ? diagnostics.flatMap((d, i) => [...(i > 0 ? [{ text: '', tone: 'plain' as const }] : []), ...problemRows(d, width - 2, 4)]) : [];
  // Above the panes: the first problem with its source lines when they leave the pane room, else its line alone; then "+N more".
  const firstRows = problems[0] && pane !== 'problems' ? problemRows(problems[0], width - 3) : [];
  const shownFirst = firstRows.length > 1 && height - 5 - firstRows.length - (problems.length > 1 ? 1 : 0) < MIN_BODY_ROWS ? firstRows.slice(0, 1) : firstRows;
  const moreLine = pane !== 'problems' && problems.length > 1 ? `+${problems.length - 1} more · d: all problems` : null;
  const rows = pane === 'source' ? lines.length : pane === 'history' ? (data?.history.length ?? 0) : pane === 'problems' ? problemList.length : (data?.routes.routes.length ?? 0);
  // Title, last reload, first problem, "+N more", pane header, column header (history, routes), access controls (routes), bottom line.
  const fixedHeight = 4 + shownFirst.length + (moreLine ? 1 : 0) + (pane === 'source' || pane === 'problems' ? 0 : 1);
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
        setBanner({ tone: record.result === 'applied' ? 'good' : 'bad', text: `reload ${record.result} in ${tookText(record.durationMs)}: ${outcomeText(record)}` });
        setBump((b) => b + 1);
      },
      (error: unknown) => setBanner({ tone: 'bad', text: `reload failed: ${problemText(error)}` }),
    );
  };

  useKeyScope(
    'config',
    'Config',
    [
      { keys: ['r'], description: 'reload the configuration now and show the result', hint: 'reload', daemonAction: true, run: reload },
      { keys: ['h'], description: 'switch between the active source and the reload history', hint: pane === 'source' ? 'history' : 'source', run: () => (setPane((p) => (p === 'source' ? 'history' : 'source')), setScroll(0)) },
      { keys: ['a'], description: 'routes and the access controls guarding each (a again: back to the source)', hint: pane === 'routes' ? 'source' : 'access', run: () => (setPane((p) => (p === 'routes' ? 'source' : 'routes')), setScroll(0)) },
      {
        keys: ['d'],
        description: 'every problem of the last reload, cause first, with its source lines (d again: back to the source)',
        ...(diagnostics.length > 0 || pane === 'problems' ? { hint: pane === 'problems' ? 'source' : 'problems' } : {}),
        run: () => (setPane((p) => (p === 'problems' ? 'source' : 'problems')), setScroll(0)),
      },
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

  const files = data ? `${data.status.files.map((f) => fileName(f.path)).join(', ')} · applied ${data.status.appliedAt ? formatClockOrDate(data.status.appliedAt, nowMs) : 'never'}` : query.loading ? 'loading…' : '';
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> CONFIG</Text>
        <Text>{truncate(`  ${files}`, Math.max(0, width - 7))}</Text>
      </Text>
      {query.error ? <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${query.error}`, width)}</Tinted></Text> : <LastReload record={last} width={width} nowMs={nowMs} />}
      {shownFirst.map((row, i) => (
        <ProblemLine key={i} row={row} indent="   " width={width} />
      ))}
      {moreLine ? <Line width={width} text={`   ${moreLine}`} dim /> : null}
      {pane === 'source' ? (
        <SourcePane file={file} count={data?.active.length ?? 0} index={fileIndex} lines={lines} top={top} height={bodyHeight} width={width} />
      ) : pane === 'history' ? (
        <HistoryPane history={data?.history ?? []} top={top} height={bodyHeight} width={width} nowMs={nowMs} />
      ) : pane === 'problems' ? (
        <ProblemsPane record={last} rows={problemList} top={top} height={bodyHeight} width={width} />
      ) : (
        <RoutesPane routes={data?.routes ?? { routes: [], accessControls: [] }} controlLines={controlLines} top={top} height={bodyHeight} width={width} />
      )}
      {banner ? <Text wrap="truncate-end"><Tinted tone={banner.tone}>{truncate(` ${banner.text}`, width)}</Tinted></Text> : <Line width={width} text="" />}
    </Box>
  );
}

function LastReload({ record, width, nowMs }: { record: ReloadRecord | null; width: number; nowMs: number }): ReactNode {
  if (!record) return <Line width={width} text="" />;
  const label = reloadLabel(record.result);
  const keeps = record.result === 'applied' ? '' : ' · the previous config keeps serving';
  return (
    <Text wrap="truncate-end">
      <Tinted tone={label.tone}>{truncate(` ${label.glyph} ${record.result} (${record.trigger}) ${formatClockOrDate(record.startedAt, nowMs)}${record.result === 'applied' ? `: ${outcomeText(record)}` : keeps}`, width)}</Tinted>
    </Text>
  );
}

/** One row of a problem: its line in its tone, the source lines around it dimmed, the caret in the problem's tone. */
function ProblemLine({ row, indent, width }: { row: ProblemRow; indent: string; width: number }): ReactNode {
  const text = truncate(`${indent}${row.text}`, width) || ' ';
  if (row.tone === 'dim') return <Text wrap="truncate-end" dimColor>{text}</Text>;
  return <Text wrap="truncate-end">{row.tone === 'plain' ? text : <Tinted tone={row.tone}>{text}</Tinted>}</Text>;
}

/** Every problem of the last reload, cause first, each with the lines of the file as it was saved. */
function ProblemsPane({ record, rows, top, height, width }: { record: ReloadRecord | null; rows: ProblemRow[]; top: number; height: number; width: number }): ReactNode {
  const count = record?.diagnostics.length ?? 0;
  const heading = count === 0 ? '── no problems in the last reload ' : `── ${plural(count, 'problem')} of the last reload (${record?.trigger ?? ''}), cause first; d: back `;
  return (
    <>
      <Line width={width} text={heading + '─'.repeat(Math.max(0, width - heading.length))} dim />
      <Box flexDirection="column" height={height}>
        {rows.slice(top, top + height).map((row, i) => (
          <ProblemLine key={top + i} row={row} indent=" " width={width} />
        ))}
      </Box>
    </>
  );
}

function SourcePane(props: { file: ActiveConfigFile | undefined; count: number; index: number; lines: string[]; top: number; height: number; width: number }): ReactNode {
  const { file, count, lines, top, height, width } = props;
  const number = String(Math.max(1, lines.length)).length;
  const heading = file
    ? `── ${fileName(file.path)}${count > 1 ? ` (${Math.min(props.index, count - 1) + 1}/${count}, f: next)` : ''} · ${plural(file.redacted, 'secret')} hidden · sha256 ${file.sha256.slice(0, 12)} `
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

function HistoryPane({ history, top, height, width, nowMs }: { history: ReloadRecord[]; top: number; height: number; width: number; nowMs: number }): ReactNode {
  const timeWidth = Math.max(TIME_WIDTH, ...history.map((r) => formatClockOrDate(r.startedAt, nowMs).length));
  const diffWidth = Math.max(8, width - timeWidth - TRIGGER_WIDTH - RESULT_WIDTH - DURATION_WIDTH - 9);
  return (
    <>
      <Line width={width} text={`── reload history (${history.length}, newest first) ${'─'.repeat(width)}`} dim />
      <Line width={width} text={` ${fit('TIME', timeWidth)}  ${fit('TRIGGER', TRIGGER_WIDTH)}  ${fit('RESULT', RESULT_WIDTH)}  ${fit('DURATION', DURATION_WIDTH)}  DIFF`} dim />
      <Box flexDirection="column" height={height}>
        {history.slice(top, top + height).map((r) => {
          const label = reloadLabel(r.result);
          return (
            <Text key={r.id} wrap="truncate-end">
              {` ${fit(formatClockOrDate(r.startedAt, nowMs), timeWidth)}  ${fit(r.trigger, TRIGGER_WIDTH)}  `}
              <Tinted tone={label.tone}>{fit(`${label.glyph} ${r.result}`, RESULT_WIDTH)}</Tinted>
              {`  ${fit(tookText(r.durationMs), DURATION_WIDTH)}  ${fit(outcomeText(r), diffWidth)}`}
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
  description: 'gateway configuration: active source (secrets ***), last reload with its problems (d: all, with their source lines), history, routes with their access controls (a); r reloads',
  Component: ConfigView,
};
