import { useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { DeliveryDetail, DeliverySelector, DeliveryStatus, DeliveryView } from '@portico/daemon/control';
import { fit, truncate } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { useNow } from '../shell/use-now.js';
import { attemptLine, filterText, lastOutcome, plural, STATUS_CYCLE, STATUS_GLYPH, STATUS_TONE, whenText } from './deliveries-format.js';
import { lastEventOf, problemText, useControlQuery } from './use-control-query.js';
import { usePrompt } from './use-prompt.js';
import type { ViewDefinition, ViewProps } from './view.js';

const ID_WIDTH = 8;
const STATUS_WIDTH = 11;
const TRIES_WIDTH = 3;
const LAST_WIDTH = 7;
const WHEN_WIDTH = 11;
const REFRESH_MS = 5_000;
const PAGE = 200;

type Banner = { tone: 'good' | 'bad' | 'plain'; text: string } | null;
interface PendingReset {
  selector: DeliverySelector;
  count: number;
  what: string;
}

function DeliveriesView({ live, source, width, height, visible, keyState, nowMs }: ViewProps): ReactNode {
  const [status, setStatus] = useState<DeliveryStatus | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [selected, setSelected] = useState(0);
  const [marked, setMarked] = useState<ReadonlySet<string>>(new Set());
  const [detail, setDetail] = useState(false);
  const [banner, setBanner] = useState<Banner>(null);
  const [confirm, setConfirm] = useState<PendingReset | null>(null);
  const [bump, setBump] = useState(0);
  const tick = Math.floor(useNow(REFRESH_MS) / REFRESH_MS);
  const api = source.api;
  const changed = lastEventOf(live.events, ['delivery.state']);
  const filter = { status: status ?? undefined, jobId: jobId ?? undefined, url: url || undefined };
  const query = useControlQuery(visible, api ? () => api.deliveries.list.query({ ...filter, limit: PAGE, offset: 0 }) : null, [status, jobId, url, changed, bump, tick, live.status.bootId]);
  const items: DeliveryView[] = query.data?.items ?? [];
  const index = Math.min(selected, Math.max(0, items.length - 1));
  const current = items[index];
  const detailQuery = useControlQuery<DeliveryDetail>(visible && detail && current !== undefined, api && current ? () => api.deliveries.get.query({ id: current.id }) : null, [current?.id, current?.attempts, current?.status, detail]);

  const askReset = (selector: DeliverySelector, what: string): void => {
    if (!api) return;
    api.deliveries.previewReset.query(selector).then(
      ({ count }) => (count === 0 ? setBanner({ tone: 'plain', text: `no DEAD deliveries in ${what}` }) : setConfirm({ selector, count, what })),
      (error: unknown) => setBanner({ tone: 'bad', text: `cannot count: ${problemText(error)}` }),
    );
  };
  const doReset = (): void => {
    const pending = confirm;
    setConfirm(null);
    if (!pending || !api) return;
    api.deliveries.resetDead.mutate({ ...pending.selector, actor: 'tui' }).then(
      ({ count }) => {
        setBanner({ tone: 'good', text: `reset ${plural(count, 'delivery', 'deliveries')} to PENDING; the callback worker retries them at its next poll` });
        setMarked(new Set());
        setBump((b) => b + 1);
      },
      (error: unknown) => setBanner({ tone: 'bad', text: `reset failed: ${problemText(error)}` }),
    );
  };
  const prompt = usePrompt('deliveries', keyState, (text) => setUrl(text.trim()));
  const toggleMark = (): void => {
    if (!current || current.status !== 'DEAD') return;
    const next = new Set(marked);
    if (next.has(current.id)) next.delete(current.id);
    else next.add(current.id);
    setMarked(next);
  };

  useKeyScope(
    'deliveries',
    'Deliveries',
    [
      { keys: ['up', 'k'], label: '↑/k', description: 'previous delivery', run: () => setSelected(Math.max(0, index - 1)) },
      { keys: ['down', 'j'], label: '↓/j', description: 'next delivery', hint: 'move', run: () => setSelected(Math.min(items.length - 1, index + 1)) },
      { keys: ['enter'], description: 'show or hide the attempt log of the selected delivery', hint: 'attempts', run: () => setDetail((d) => !d) },
      { keys: ['s'], description: 'filter by status: all → PENDING → DELIVERED → DEAD', hint: 'status', run: () => setStatus(STATUS_CYCLE[(STATUS_CYCLE.indexOf(status) + 1) % STATUS_CYCLE.length] ?? null) },
      { keys: ['/'], description: 'filter by callback URL (part of it); empty clears', hint: 'url', run: () => prompt.open(url) },
      { keys: ['o'], description: "only the selected delivery's job (again: all jobs)", run: () => setJobId(jobId ? null : (current?.ingest_job_id ?? null)) },
      { keys: [' '], label: 'Space', description: 'mark or unmark the selected DEAD delivery', run: toggleMark },
      {
        keys: ['r'],
        description: 'reset DEAD: the marked deliveries, else the selected one (shows the count, asks y)',
        hint: 'reset',
        run: () => (marked.size > 0 ? askReset({ ids: [...marked] }, 'the marked deliveries') : current && askReset({ ids: [current.id] }, `delivery ${current.id.slice(0, 8)}`)),
      },
      {
        keys: ['R'],
        label: 'R',
        description: 'reset every DEAD delivery matching the filter (shows the count, asks y)',
        run: () => askReset({ jobId: filter.jobId, url: filter.url, all: !filter.jobId && !filter.url }, 'the filter'),
      },
      { keys: ['y'], description: 'confirm the reset', run: doReset },
      { keys: ['escape'], description: 'close the question, the message or the attempt log', run: () => (setConfirm(null), setBanner(null), setDetail(false)) },
    ],
    keyState,
  );

  const urlWidth = Math.max(8, width - ID_WIDTH * 2 - STATUS_WIDTH - TRIES_WIDTH - LAST_WIDTH - WHEN_WIDTH - 14);
  const detailLines = detail && current ? Math.min(8, Math.max(4, Math.floor(height / 3))) : 0;
  const listHeight = Math.max(1, height - 5 - detailLines);
  const top = Math.max(0, Math.min(index - Math.floor(listHeight / 2), items.length - listHeight));
  const total = query.data?.total ?? 0;
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> DELIVERIES</Text>
        <Text>{`  ${query.data ? `${total} matching` : query.loading ? 'loading…' : ''} · ${filterText({ status, jobId, url })}${marked.size > 0 ? ` · ${marked.size} marked` : ''}`}</Text>
      </Text>
      {query.error ? <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${query.error}`, width)}</Tinted></Text> : <Line width={width} text="" />}
      <Line width={width} text={`   ${fit('ID', ID_WIDTH)}  ${fit('JOB', ID_WIDTH)}  ${fit('STATUS', STATUS_WIDTH)}  ${fit('TRY', TRIES_WIDTH)}  ${fit('LAST', LAST_WIDTH)}  ${fit('WHEN', WHEN_WIDTH)}  URL`} dim />
      <Box flexDirection="column" height={listHeight}>
        {items.slice(top, top + listHeight).map((d, i) => (
          <Text key={d.id} wrap="truncate-end" inverse={top + i === index}>
            {`${marked.has(d.id) ? '*' : ' '}  ${d.id.slice(0, ID_WIDTH)}  ${d.ingest_job_id.slice(0, ID_WIDTH)}  `}
            <Tinted tone={STATUS_TONE[d.status]}>{fit(`${STATUS_GLYPH[d.status]} ${d.status}`, STATUS_WIDTH)}</Tinted>
            {`  ${fit(`${d.attempts}/5`, TRIES_WIDTH)}  ${fit(lastOutcome(d), LAST_WIDTH)}  ${fit(whenText(d, nowMs), WHEN_WIDTH)}  ${fit(d.callback_url, urlWidth)}`}
          </Text>
        ))}
        {query.data && items.length === 0 ? <Line width={width} text=" No deliveries match. s changes the status filter, / the URL filter." dim /> : null}
      </Box>
      {detailLines > 0 && current ? (
        <Box flexDirection="column" height={detailLines}>
          <Line width={width} text={` ${current.id} · job ${current.ingest_job_id} · ${current.event_type} · ${current.signed ? 'signed' : 'unsigned'}${current.last_error ? ` · ${current.last_error}` : ''}`} bold />
          {(detailQuery.data?.attempt_log ?? []).slice(-(detailLines - 1)).map((a) => (
            <Line key={a.attempt} width={width} text={`   ${attemptLine(a)}`} />
          ))}
          {detailQuery.data && detailQuery.data.attempt_log.length === 0 ? <Line width={width} text="   no attempts yet" dim /> : null}
        </Box>
      ) : null}
      {prompt.text !== null ? (
        <Line width={width} text={` callback URL contains: ${prompt.text}█`} />
      ) : confirm ? (
        <Line width={width} text={` reset ${plural(confirm.count, 'DEAD delivery', 'DEAD deliveries')} (${confirm.what}) to PENDING? y resets, Esc keeps them`} bold />
      ) : banner ? (
        <Text wrap="truncate-end"><Tinted tone={banner.tone}>{truncate(` ${banner.text}`, width)}</Tinted></Text>
      ) : (
        <Line width={width} text="" />
      )}
    </Box>
  );
}

export const deliveriesView: ViewDefinition = {
  id: 'deliveries',
  title: 'deliveries',
  aliases: ['callbacks', 'outbox', 'webhooks'],
  description: 'webhook callback deliveries: filter, attempt log, reset DEAD ones (one, marked, all matching)',
  Component: DeliveriesView,
};
