import { useEffect, useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { DeliveryDetail, DeliverySelector, DeliveryStatus, DeliveryView } from '@portico/daemon/control';
import { layoutColumns, layoutLine, type ColumnSpec } from '../format/columns.js';
import { truncate } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { useNow } from '../shell/use-now.js';
import { deliveryLabel, plural, shortId, triesDetail, triesText } from '@portico/daemon/display';
import { attemptLine, filterText, lastText, STATUS_CYCLE, whenText } from './deliveries-format.js';
import { lastEventOf, problemText, useControlQuery } from './use-control-query.js';
import { usePrompt } from './use-prompt.js';
import { Cells } from './table-cells.js';
import { ConfirmLine, useConfirm } from './use-confirm.js';
import type { ViewDefinition, ViewProps } from './view.js';

const REFRESH_MS = 5_000;
const PAGE = 200;

type Banner = { tone: 'good' | 'bad' | 'plain'; text: string } | null;
interface PendingReset {
  selector: DeliverySelector;
  count: number;
  what: string;
}

function DeliveriesView({ live, source, width, height, visible, keyState, nowMs, focus }: ViewProps): ReactNode {
  const [status, setStatus] = useState<DeliveryStatus | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [selected, setSelected] = useState(0);
  const [marked, setMarked] = useState<ReadonlySet<string>>(new Set());
  const [detail, setDetail] = useState(false);
  const [banner, setBanner] = useState<Banner>(null);
  // A delivery another view asked for (Jobs `d`): selected once the list shows it.
  const [wanted, setWanted] = useState<string | null>(null);
  const [bump, setBump] = useState(0);
  const tick = Math.floor(useNow(REFRESH_MS) / REFRESH_MS);
  const api = source.api;
  const changed = lastEventOf(live.events, ['delivery.state']);
  const filter = { status: status ?? undefined, jobId: jobId ?? undefined, url: url || undefined };
  const query = useControlQuery(visible, api ? () => api.deliveries.list.query({ ...filter, limit: PAGE, offset: 0 }) : null, [status, jobId, url, changed, bump, tick, live.status.bootId]);
  const items: DeliveryView[] = query.data?.items ?? [];
  const index = Math.min(selected, Math.max(0, items.length - 1));
  const current = items[index];
  const detailQuery = useControlQuery<DeliveryDetail>(visible && detail && current !== undefined, api && current ? () => api.deliveries.get.query({ id: current.id }) : null, [current?.id, current?.attempts, current?.status, current?.next_attempt_at, detail]);

  useEffect(() => {
    if (!focus || !api) return;
    let cancelled = false;
    api.deliveries.get.query({ id: focus.target }).then(
      (d) => {
        if (cancelled) return;
        setStatus(null);
        setUrl('');
        setJobId(d.ingest_job_id);
        setMarked(new Set());
        setWanted(d.id);
        setDetail(true);
      },
      (error: unknown) => !cancelled && setBanner({ tone: 'bad', text: `cannot open delivery ${shortId(focus.target)}: ${problemText(error)}` }),
    );
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [focus?.seq]);
  useEffect(() => {
    if (wanted === null) return;
    const at = items.findIndex((d) => d.id === wanted);
    if (at >= 0) {
      setSelected(at);
      setWanted(null);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [wanted, query.data]);

  // Asked the same way as every question in the console: y does it, Esc or n keeps things as they are.
  const resetQuestion = useConfirm<PendingReset>('deliveries-reset', keyState, (pending) => doReset(pending));
  const retryQuestion = useConfirm<DeliveryView>('deliveries-retry', keyState, (pending) => doRetry(pending));

  const askReset = (selector: DeliverySelector, what: string): void => {
    if (!api) return;
    api.deliveries.previewReset.query(selector).then(
      ({ count }) => (count === 0 ? setBanner({ tone: 'plain', text: `no DEAD deliveries to reset (${what})` }) : (retryQuestion.cancel(), resetQuestion.ask({ selector, count, what }))),
      (error: unknown) => setBanner({ tone: 'bad', text: `cannot count: ${problemText(error)}` }),
    );
  };
  const doReset = (pending: PendingReset): void => {
    if (!api) return;
    api.deliveries.resetDead.mutate({ ...pending.selector, actor: 'tui' }).then(
      ({ count }) => {
        setBanner({ tone: 'good', text: `reset ${plural(count, 'delivery', 'deliveries')} to PENDING; the callback worker retries them at its next poll` });
        setMarked(new Set());
        setBump((b) => b + 1);
      },
      (error: unknown) => setBanner({ tone: 'bad', text: `reset failed: ${problemText(error)}` }),
    );
  };
  const askRetry = (): void => {
    if (!current) return;
    resetQuestion.cancel();
    const short = shortId(current.id);
    if (current.status === 'DEAD') setBanner({ tone: 'plain', text: `delivery ${short} is DEAD: retry now is for PENDING ones; r resets it` });
    else if (current.status !== 'PENDING') setBanner({ tone: 'plain', text: `delivery ${short} is ${current.status}: retry now is for PENDING ones` });
    else retryQuestion.ask(current);
  };
  const doRetry = (pending: DeliveryView): void => {
    if (!api) return;
    api.deliveries.retryNow.mutate({ id: pending.id, actor: 'tui' }).then(
      () => {
        setBanner({ tone: 'good', text: `delivery ${shortId(pending.id)} is due now; a callback worker attempts it at its next poll` });
        setBump((b) => b + 1);
      },
      (error: unknown) => setBanner({ tone: 'bad', text: `retry failed: ${problemText(error)}` }),
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
        daemonAction: true,
        run: () => (retryQuestion.cancel(), marked.size > 0 ? askReset({ ids: [...marked] }, 'the marked deliveries') : current && askReset({ ids: [current.id] }, `delivery ${shortId(current.id)}`)),
      },
      {
        keys: ['R'],
        label: 'R',
        description: 'reset every DEAD delivery matching the filter (shows the count, asks y)',
        daemonAction: true,
        run: () => askReset({ jobId: filter.jobId, url: filter.url, all: !filter.jobId && !filter.url }, 'the filter'),
      },
      { keys: ['n'], description: 'retry the selected PENDING delivery now instead of at its next attempt time (asks y)', hint: 'retry now', daemonAction: true, run: askRetry },
      { keys: ['escape'], description: 'close the message or the attempt log', run: () => (setBanner(null), setDetail(false)) },
    ],
    keyState,
  );

  const rows = items.map((d) => deliveryCells(d, marked.has(d.id), nowMs));
  const layout = layoutColumns(deliveryColumns(rows), width, { indent: 0 });
  // The header and the URL line, then the newest attempts.
  const detailLines = detail && current ? Math.min(9, Math.max(5, Math.floor(height / 3) + 1)) : 0;
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
      <Line width={width} text={layoutLine(layout, HEADERS)} dim />
      <Box flexDirection="column" height={listHeight}>
        {items.slice(top, top + listHeight).map((d, i) => (
          <Text key={d.id} wrap="truncate-end" inverse={top + i === index}>
            <Cells layout={layout} cells={rows[top + i]!} tinted={[STATUS_COLUMN]} tone={deliveryLabel(d.status).tone} />
          </Text>
        ))}
        {query.data && items.length === 0 ? <Line width={width} text=" No deliveries match. s changes the status filter, / the URL filter." dim /> : null}
      </Box>
      {detailLines > 0 && current ? (
        <Box flexDirection="column" height={detailLines}>
          <Line width={width} text={detailHeader(current, width)} bold />
          <Line width={width} text={`   to ${current.callback_url} · ${current.event_type} · ${current.signed ? 'signed' : 'unsigned'}`} />
          {(detailQuery.data?.attempt_log ?? []).slice(-(detailLines - 2)).map((entry) => (
            <Line key={entry.kind === 'attempt' ? `a${entry.attempt}` : `${entry.kind}${entry.at}`} width={width} text={`   ${attemptLine(entry, nowMs)}`} dim={entry.kind !== 'attempt'} />
          ))}
          {detailQuery.data && detailQuery.data.attempt_log.length === 0 ? <Line width={width} text="   no attempts yet" dim /> : null}
        </Box>
      ) : null}
      {prompt.text !== null ? (
        <Line width={width} text={` callback URL contains: ${prompt.text}█`} />
      ) : retryQuestion.asking ? (
        <ConfirmLine question={`retry ${shortId(retryQuestion.asking.id)} now (next attempt ${whenText(retryQuestion.asking, nowMs)})`} yes="retries" no="keeps the schedule" width={width} />
      ) : resetQuestion.asking ? (
        <ConfirmLine question={`reset ${plural(resetQuestion.asking.count, 'DEAD delivery', 'DEAD deliveries')} (${resetQuestion.asking.what}) to PENDING`} yes="resets" no="keeps them" width={width} />
      ) : banner ? (
        <Text wrap="truncate-end"><Tinted tone={banner.tone}>{truncate(` ${banner.text}`, width)}</Tinted></Text>
      ) : (
        <Line width={width} text="" />
      )}
    </Box>
  );
}

/** The detail's first line: the whole id where it fits with the attempt and the job, else the list's short id, so neither is cut. */
function detailHeader(d: DeliveryView, width: number): string {
  const rest = ` · attempt ${triesDetail(d)} · job ${shortId(d.ingest_job_id)}`;
  const whole = ` ${d.id}${rest}`;
  return whole.length <= width ? whole : ` ${shortId(d.id)}${rest}`;
}

const HEADERS = [' ', 'ID', 'JOB', 'STATUS', 'TRY', 'WHEN', 'LAST', 'URL'];
const STATUS_COLUMN = 3;
/** Cells an error text (LAST) is still worth reading at; below it the URL column gives way. */
const LAST_MIN = 30;
/** Cells a callback URL is worth showing at (most read whole in it); narrower, the job column and then the URL give way. */
const URL_MIN = 40;

/** One delivery's row: mark, id, job, status, tries, when, the last outcome with its error, URL. */
function deliveryCells(d: DeliveryView, marked: boolean, nowMs: number): string[] {
  return [marked ? '*' : ' ', shortId(d.id), shortId(d.ingest_job_id), `${deliveryLabel(d.status).glyph} ${d.status}`, triesText(d), whenText(d, nowMs), lastText(d), d.callback_url];
}

/**
 * The last outcome (with its error text) and the URL share the spare width. Narrow, the job
 * goes first (the detail names it), then the URL (the detail shows it): the error text is what
 * an operator needs, so LAST keeps room to be read; then tries and time; the status is kept
 * longest, after the id.
 */
function deliveryColumns(rows: readonly string[][]): ColumnSpec[] {
  const column = (i: number): string[] => rows.map((r) => r[i]!);
  return [
    { header: HEADERS[0]!, cells: column(0), keep: 9 },
    { header: HEADERS[1]!, cells: column(1), keep: 8 },
    { header: HEADERS[2]!, cells: column(2), keep: 1 },
    // The widest status's width always, so the columns do not shift when one changes.
    { header: HEADERS[3]!, cells: [...column(3), '◐ DELIVERED'], keep: 10 },
    { header: HEADERS[4]!, cells: column(4), keep: 4 },
    { header: HEADERS[5]!, cells: column(5), keep: 5 },
    { header: HEADERS[6]!, cells: column(6), grow: true, min: LAST_MIN, keep: 6 },
    { header: HEADERS[7]!, cells: column(7), grow: true, min: URL_MIN, keep: 3 },
  ];
}

export const deliveriesView: ViewDefinition = {
  id: 'deliveries',
  title: 'deliveries',
  aliases: ['callbacks', 'outbox', 'webhooks'],
  description: 'webhook callback deliveries: filter, attempt log, reset DEAD ones (one, marked, all matching)',
  Component: DeliveriesView,
};
