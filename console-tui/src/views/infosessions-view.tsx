import { useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { SessionPage, SessionView, InfosessionsSourceStatus } from '@portico/daemon/control';
import { formatClock } from '../format/duration.js';
import { fit, truncate } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { lastEventOf, useControlQuery } from './use-control-query.js';
import { usePrompt } from './use-prompt.js';
import type { ViewDefinition, ViewProps } from './view.js';

const DATE_WIDTH = 10;
const TIME_WIDTH = 11;
const BUILDING_WIDTH = 18;
const DETAIL_HEIGHT = 11;
/** The daemon's page size; the view lists one page, filtered on the daemon. */
const PAGE_LIMIT = 1000;

interface Data {
  page: SessionPage;
  source: InfosessionsSourceStatus;
}

export function sessionTime(s: Pick<SessionView, 'start_time' | 'end_time'>): string {
  if (!s.start_time && !s.end_time) return '';
  return `${s.start_time ?? '?'}-${s.end_time ?? '?'}`;
}

export function buildingText(s: Pick<SessionView, 'building'>): string {
  return [s.building.code, s.building.room].filter(Boolean).join(' ');
}

/** Words wrapped to `width`, at most `lines` lines, the last one ending with … when cut. */
export function wrap(text: string, width: number, lines: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    if (current === '') current = word;
    else if (current.length + 1 + word.length <= width) current += ` ${word}`;
    else {
      out.push(current);
      current = word;
    }
  }
  if (current !== '') out.push(current);
  if (out.length <= lines) return out.map((l) => truncate(l, width));
  const kept = out.slice(0, lines);
  kept[lines - 1] = truncate(`${kept[lines - 1]} …`, width).replace(/ …$/, '…');
  return kept.map((l) => truncate(l, width));
}

function InfosessionsView({ live, source, width, height, visible, keyState }: ViewProps): ReactNode {
  const [filter, setFilter] = useState('');
  const [selected, setSelected] = useState(0);
  const [detail, setDetail] = useState(false);
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
          return { page, source: status };
        }
      : null,
    [filter, reloaded, live.status.bootId],
  );
  const prompt = usePrompt('infosessions', keyState, (text) => {
    setFilter(text.trim());
    setSelected(0);
  });

  const items = query.data?.page.items ?? [];
  const listHeight = Math.max(1, height - 4 - (detail ? DETAIL_HEIGHT : 0));
  const index = Math.min(selected, Math.max(0, items.length - 1));
  const top = Math.max(0, Math.min(index - Math.floor(listHeight / 2), items.length - listHeight));
  const move = (to: number): void => setSelected(Math.max(0, Math.min(items.length - 1, to)));

  useKeyScope(
    'infosessions',
    'Infosessions',
    [
      { keys: ['/'], description: 'filter by words in the employer or description', hint: 'filter', run: () => prompt.open(filter) },
      { keys: ['up', 'k'], label: '↑/k', description: 'previous session', run: () => move(index - 1) },
      { keys: ['down', 'j'], label: '↓/j', description: 'next session', hint: 'move', run: () => move(index + 1) },
      { keys: ['pageup'], description: 'up one page', run: () => move(index - listHeight) },
      { keys: ['pagedown', ' '], label: 'PgDn/Space', description: 'down one page', run: () => move(index + listHeight) },
      { keys: ['home', 'g'], label: 'Home/g', description: 'first session', run: () => move(0) },
      { keys: ['end', 'G'], label: 'End/G', description: 'last session', run: () => move(items.length - 1) },
      { keys: ['enter'], description: 'show or hide the detail of the selected session', hint: 'detail', run: () => setDetail((d) => !d) },
      { keys: ['escape'], description: 'close the detail, else clear the filter', run: () => (detail ? setDetail(false) : setFilter('')) },
    ],
    keyState,
  );

  const employerWidth = Math.max(8, width - DATE_WIDTH - TIME_WIDTH - BUILDING_WIDTH - 7);
  const page = query.data?.page;
  const count = page ? `${page.total}${filter ? ` matching "${filter}"` : ' sessions'}` : query.loading ? 'loading…' : '';
  const current = items[index];
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> INFOSESSIONS</Text>
        <Text>{`  ${count}${page && page.total > items.length ? ` (first ${items.length})` : ''}`}</Text>
      </Text>
      <SourceLine data={query.data} error={query.error} width={width} />
      <Line width={width} text={` ${fit('DATE', DATE_WIDTH)}  ${fit('TIME', TIME_WIDTH)}  ${fit('EMPLOYER', employerWidth)}  BUILDING`} dim />
      <Box flexDirection="column" height={listHeight}>
        {items.slice(top, top + listHeight).map((s, i) => (
          <Line
            key={`${s.line}`}
            width={width}
            inverse={top + i === index}
            text={` ${fit(s.date ?? '', DATE_WIDTH)}  ${fit(sessionTime(s), TIME_WIDTH)}  ${fit(s.employer ?? '(no employer)', employerWidth)}  ${fit(buildingText(s), BUILDING_WIDTH)}`}
          />
        ))}
        {page && items.length === 0 ? <Line width={width} text={filter ? ` No session matches "${filter}". Esc clears the filter.` : ' No sessions loaded; see the source line above.'} dim /> : null}
      </Box>
      {detail && current ? <Detail session={current} width={width} /> : null}
      {prompt.text !== null ? <Line width={width} text={`/${prompt.text}█`} /> : <Line width={width} text={filter ? ` filter: ${filter}` : ''} dim />}
    </Box>
  );
}

function SourceLine({ data, error, width }: { data: Data | null; error: string | null; width: number }): ReactNode {
  if (error) return <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${error}`, width)}</Tinted></Text>;
  const s = data?.source.sessions;
  if (!s) return <Line width={width} text="" />;
  const file = s.file.split('/').at(-1) ?? s.file;
  if (s.error) {
    return (
      <Text wrap="truncate-end">
        <Tinted tone="bad">{truncate(` ✗ ${file}: ${s.error.message} — still serving the previous ${s.rows}`, width)}</Tinted>
      </Text>
    );
  }
  const skipped = s.rejected.length > 0 ? ` · ${s.rejected.length} row${s.rejected.length === 1 ? '' : 's'} skipped (first: line ${s.rejected[0]!.line}: ${s.rejected[0]!.reason})` : '';
  return <Line width={width} text={` ${file} · ${s.rows} rows · loaded ${s.loadedAt ? formatClock(s.loadedAt) : 'never'}${skipped}`} dim />;
}

function Detail({ session: s, width }: { session: SessionView; width: number }): ReactNode {
  const inner = width - 2;
  const where = [s.building.name, s.building.room].filter(Boolean).join(', ') || 'no building';
  const facts = [
    `${s.employer ?? '(no employer)'}  #${s.id ?? '?'}`,
    `${s.date ?? 'no date'} (${s.day ?? '-'})  ${sessionTime(s) || 'no time'}`,
    `at ${where}${s.building.code ? ` [${s.building.code}]` : ''}`,
    `web ${s.website ?? '-'}  ·  ${s.students ?? ''}`,
    `for ${(s.audience ?? []).join(', ') || '-'}`,
  ];
  const description = wrap(s.description ?? '(no description)', inner, DETAIL_HEIGHT - facts.length - 1);
  return (
    <Box flexDirection="column" height={DETAIL_HEIGHT}>
      <Line width={width} text={'─'.repeat(width)} dim />
      {facts.map((f, i) => (
        <Line key={i} width={width} text={` ${f}`} bold={i === 0} />
      ))}
      {description.map((l, i) => (
        <Line key={`d${i}`} width={width} text={` ${l}`} />
      ))}
    </Box>
  );
}

export const infosessionsView: ViewDefinition = {
  id: 'infosessions',
  title: 'infosessions',
  aliases: ['is', 'sessions'],
  description: 'campus infosessions: the loaded CSV, / to filter, Enter for the detail',
  Component: InfosessionsView,
};
