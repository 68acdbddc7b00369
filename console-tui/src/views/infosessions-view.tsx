import { useEffect, useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { SessionPage, SessionView, InfosessionsSourceStatus } from '@portico/daemon/control';
import { plural, stillServingText } from '@portico/daemon/display';
import { cellsOf, layoutColumns, layoutLine, type ColumnSpec } from '../format/columns.js';
import { formatClockOrDate } from '../format/duration.js';
import { truncate, wrapText } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { lastEventOf, useControlQuery } from './use-control-query.js';
import { usePrompt } from './use-prompt.js';
import type { ViewDefinition, ViewProps } from './view.js';

/** The daemon's page size; the view lists one page, filtered on the daemon. */
const PAGE_LIMIT = 1000;
/** A filter being typed applies once the keys pause this long (one read per pause, not per key). */
export const FILTER_PAUSE_MS = 150;
const HEADERS = ['DATE', 'TIME', 'EMPLOYER', 'BUILDING'];

interface Data {
  page: SessionPage;
  source: InfosessionsSourceStatus;
  /** The filter this page answers: the header names it, not the one still being fetched. */
  filter: string;
}

export function sessionTime(s: Pick<SessionView, 'start_time' | 'end_time'>): string {
  if (!s.start_time && !s.end_time) return '';
  return `${s.start_time ?? '?'}-${s.end_time ?? '?'}`;
}

export function buildingText(s: Pick<SessionView, 'building'>): string {
  return [s.building.code, s.building.room].filter(Boolean).join(' ');
}

function sessionCells(s: SessionView): string[] {
  return [s.date ?? '', sessionTime(s), s.employer ?? '(no employer)', buildingText(s)];
}

/** The employer takes what the date, time and building leave; narrow, the building goes first. */
function sessionColumns(rows: readonly string[][]): ColumnSpec[] {
  return [
    { header: HEADERS[0]!, cells: [...cellsOf(rows, 0), '2000-01-01'], keep: 5 },
    { header: HEADERS[1]!, cells: [...cellsOf(rows, 1), '00:00-00:00'], keep: 4 },
    { header: HEADERS[2]!, cells: cellsOf(rows, 2), grow: true, keep: 9 },
    { header: HEADERS[3]!, cells: cellsOf(rows, 3), grow: true, min: 6, keep: 3 },
  ];
}

/** What a missing fact shows, the dash the web dashboard shows. */
const MISSING = '—';

/** Every line of a session's detail at `width`: the facts, then the whole description, nothing cut. */
export function detailLines(s: SessionView, width: number): Array<{ text: string; bold?: boolean }> {
  const where = [s.building.name, s.building.room].filter(Boolean).join(', ') || 'no building';
  const facts = [
    `${s.employer ?? '(no employer)'}  #${s.id ?? '?'}`,
    `${s.date ?? 'no date'} (${s.day ?? MISSING})  ${sessionTime(s) || 'no time'}`,
    `at ${where}${s.building.code ? ` [${s.building.code}]` : ''}`,
    `web ${s.website ?? MISSING}  ·  ${s.students ?? MISSING}`,
    `for ${(s.audience ?? []).join(', ') || MISSING}`,
  ];
  const inner = Math.max(1, width - 2);
  return [
    ...facts.flatMap((f, i) => wrapText(f, inner).map((text) => ({ text, ...(i === 0 ? { bold: true } : {}) }))),
    { text: '' },
    ...wrapText(s.description ?? '(no description)', inner).map((text) => ({ text })),
  ];
}

function InfosessionsView({ live, source, nowMs, width, height, visible, keyState }: ViewProps): ReactNode {
  // The filter the list shows; while `/` is open, `typed` follows the keys and becomes the filter at each pause.
  const [filter, setFilter] = useState('');
  const [typed, setTyped] = useState<string | null>(null);
  const [before, setBefore] = useState('');
  const [selected, setSelected] = useState(0);
  const [detail, setDetail] = useState(false);
  const [detailTop, setDetailTop] = useState(0);
  const reloaded = lastEventOf(live.events, ['infosessions.reloaded']);
  const api = source.api;
  const query = useControlQuery<Data>(
    visible,
    api
      ? async () => {
          const [page, status] = await Promise.all([
            api.infosessions.list.query({ ...(filter ? { search: filter } : {}), sort: 'date', limit: PAGE_LIMIT }),
            api.infosessions.source.query(),
          ]);
          return { page, source: status, filter };
        }
      : null,
    [filter, reloaded, live.status.bootId],
  );
  const applyFilter = (text: string): void => {
    setFilter(text.trim());
    setSelected(0);
    setDetailTop(0);
  };
  useEffect(() => {
    if (typed === null) return;
    const timer = setTimeout(() => applyFilter(typed), FILTER_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  const prompt = usePrompt(
    'infosessions',
    keyState,
    (text) => {
      setTyped(null);
      applyFilter(text);
    },
    () => {
      // Esc while typing: back to the filter from before the `/`.
      setTyped(null);
      applyFilter(before);
    },
    setTyped,
  );

  const items = query.data?.page.items ?? [];
  const index = Math.min(selected, Math.max(0, items.length - 1));
  const current = items[index];
  const room = Math.max(2, height - 4);
  const detailHeight = detail && current ? Math.max(4, Math.floor(room * 0.6)) : 0;
  const listHeight = Math.max(1, room - detailHeight);
  const top = Math.max(0, Math.min(index - Math.floor(listHeight / 2), items.length - listHeight));
  const move = (to: number): void => {
    setSelected(Math.max(0, Math.min(items.length - 1, to)));
    setDetailTop(0);
  };
  const lines = detail && current ? detailLines(current, width) : [];
  const detailRows = Math.max(1, detailHeight - 1);
  const lastTop = Math.max(0, lines.length - detailRows);
  const scrollDetail = (by: number): void => setDetailTop((t) => Math.max(0, Math.min(lastTop, Math.min(t, lastTop) + by)));

  useKeyScope(
    'infosessions',
    'Infosessions',
    [
      {
        keys: ['/'],
        description: 'filter by words in the employer or description; the list follows as you type, Enter keeps it, Esc goes back',
        hint: 'filter',
        run: () => {
          setBefore(filter);
          prompt.open(filter);
        },
      },
      { keys: ['up', 'k'], label: '↑/k', description: 'previous session', run: () => move(index - 1) },
      { keys: ['down', 'j'], label: '↓/j', description: 'next session', hint: 'move', run: () => move(index + 1) },
      { keys: ['pageup'], description: 'up one page', run: () => move(index - listHeight) },
      { keys: ['pagedown', ' '], label: 'PgDn/Space', description: 'down one page', run: () => move(index + listHeight) },
      { keys: ['home', 'g'], label: 'Home/g', description: 'first session', run: () => move(0) },
      { keys: ['end', 'G'], label: 'End/G', description: 'last session', run: () => move(items.length - 1) },
      { keys: ['enter'], description: 'show or hide the detail of the selected session', hint: 'detail', run: () => (setDetail((d) => !d), setDetailTop(0)) },
      ...(detail
        ? [
            { keys: ['J'], label: 'J/K', description: 'scroll the detail down / up a line', hint: 'scroll detail', run: () => scrollDetail(1) },
            { keys: ['K'], description: 'scroll the detail up a line', run: () => scrollDetail(-1) },
          ]
        : []),
      { keys: ['escape'], description: 'close the detail, else clear the filter', run: () => (detail ? setDetail(false) : applyFilter('')) },
    ],
    keyState,
  );

  const rows = items.map(sessionCells);
  const layout = layoutColumns(sessionColumns(rows), width);
  const page = query.data?.page;
  const shown = query.data?.filter ?? '';
  const count = page ? `${page.total}${shown ? ` matching "${shown}"` : ' sessions'}` : query.loading ? 'loading…' : '';
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> INFOSESSIONS</Text>
        <Text>{`  ${count}${page && page.total > items.length ? ` (first ${items.length})` : ''}`}</Text>
      </Text>
      <SourceLine data={query.data} error={query.error} nowMs={nowMs} width={width} />
      <Line width={width} text={layoutLine(layout, HEADERS)} dim />
      <Box flexDirection="column" height={listHeight}>
        {items.slice(top, top + listHeight).map((s, i) => (
          <Line key={`${s.line}`} width={width} inverse={top + i === index} text={layoutLine(layout, rows[top + i]!)} />
        ))}
        {page && items.length === 0 ? <Line width={width} text={filter ? ` No session matches "${filter}". Esc clears the filter.` : ' No sessions loaded; see the source line above.'} dim /> : null}
      </Box>
      {detailHeight > 0 ? <Detail lines={lines} top={Math.min(detailTop, lastTop)} rows={detailRows} width={width} /> : null}
      {prompt.text !== null ? <Line width={width} text={`/${prompt.text}█`} /> : <Line width={width} text={filter ? ` filter: ${filter}` : ''} dim />}
    </Box>
  );
}

function SourceLine({ data, error, nowMs, width }: { data: Data | null; error: string | null; nowMs: number; width: number }): ReactNode {
  if (error) return <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${error}`, width)}</Tinted></Text>;
  const s = data?.source.sessions;
  if (!s) return <Line width={width} text="" />;
  const file = s.file.split('/').at(-1) ?? s.file;
  if (s.error) {
    return (
      <Text wrap="truncate-end">
        <Tinted tone="bad">{truncate(` ✗ ${file}: ${s.error.message} — ${stillServingText(s.rows, 'session')}`, width)}</Tinted>
      </Text>
    );
  }
  const skipped = s.rejected.length > 0 ? ` · ${plural(s.rejected.length, 'row')} skipped (first: line ${s.rejected[0]!.line}: ${s.rejected[0]!.reason})` : '';
  return <Line width={width} text={` ${file} · ${plural(s.rows, 'row')} · loaded ${s.loadedAt ? formatClockOrDate(s.loadedAt, nowMs) : 'never'}${skipped}`} dim />;
}

/** The selected session's detail: a rule saying which lines show, then `rows` lines from `top`. */
function Detail({ lines, top, rows, width }: { lines: ReadonlyArray<{ text: string; bold?: boolean }>; top: number; rows: number; width: number }): ReactNode {
  const more = lines.length > rows ? ` lines ${top + 1}–${Math.min(lines.length, top + rows)} of ${lines.length} · J/K scroll ` : '';
  return (
    <Box flexDirection="column" height={rows + 1}>
      <Line width={width} text={`──${more}`.padEnd(width, '─')} dim />
      {lines.slice(top, top + rows).map((l, i) => (
        <Line key={top + i} width={width} text={` ${l.text}`} {...(l.bold ? { bold: true } : {})} />
      ))}
    </Box>
  );
}

export const infosessionsView: ViewDefinition = {
  id: 'infosessions',
  title: 'infosessions',
  aliases: ['is', 'sessions'],
  description: 'campus infosessions: the loaded CSV, / filters as you type, Enter for the detail (J/K scroll it)',
  Component: InfosessionsView,
};
