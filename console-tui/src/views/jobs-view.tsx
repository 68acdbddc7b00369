import { useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { JobStatus, JobView } from '@portico/daemon/control';
import { cellsOf, layoutColumns, layoutLine, type ColumnSpec } from '../format/columns.js';
import { truncate, wrapText } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { formatClockOrDate, jobLabel, jobOutcome, lastErrorText, shortId } from '@portico/daemon/display';
import { useNow } from '../shell/use-now.js';
import { jobDeliveryText } from './deliveries-format.js';
import { lastEventOf, problemText, useControlQuery } from './use-control-query.js';
import { Cells } from './table-cells.js';
import { ConfirmLine, useConfirm } from './use-confirm.js';
import type { ViewDefinition, ViewProps } from './view.js';

/** A failed job's error wraps onto at most this many lines of its detail. */
const MAX_ERROR_LINES = 2;
const REFRESH_MS = 5_000;
const STATUSES: ReadonlyArray<JobStatus | null> = [null, 'QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];

function JobsView({ live, source, width, height, visible, keyState, nowMs, openView }: ViewProps): ReactNode {
  const [status, setStatus] = useState<JobStatus | null>(null);
  const [selected, setSelected] = useState(0);
  const [detail, setDetail] = useState(false);
  const [banner, setBanner] = useState<{ tone: 'good' | 'bad'; text: string } | null>(null);
  const [bump, setBump] = useState(0);
  const tick = Math.floor(useNow(REFRESH_MS) / REFRESH_MS);
  const api = source.api;
  // A delivery's progress shows in the job's detail, so its events re-read the list too.
  const changed = lastEventOf(live.events, ['job.state', 'delivery.state']);
  const query = useControlQuery(visible, api ? () => api.jobs.list.query({ status: status ?? undefined, limit: 200, offset: 0 }) : null, [status, changed, bump, tick, live.status.bootId]);
  const jobs: JobView[] = query.data?.items ?? [];
  const index = Math.min(selected, Math.max(0, jobs.length - 1));
  const current = jobs[index];
  const cancelQuestion = useConfirm<JobView>('jobs', keyState, (job) => {
    if (!api) return;
    api.jobs.cancel.mutate({ id: job.ingest_job_id, actor: 'tui' }).then(
      (done) => (setBanner({ tone: 'good', text: `job ${shortId(done.ingest_job_id)} is ${done.status}` }), setBump((b) => b + 1)),
      (error: unknown) => setBanner({ tone: 'bad', text: `cancel failed: ${problemText(error)}` }),
    );
  });

  useKeyScope(
    'jobs',
    'Jobs',
    [
      { keys: ['up', 'k'], label: '↑/k', description: 'previous job', run: () => setSelected(Math.max(0, index - 1)) },
      { keys: ['down', 'j'], label: '↓/j', description: 'next job', hint: 'move', run: () => setSelected(Math.min(jobs.length - 1, index + 1)) },
      { keys: ['enter'], description: 'show or hide the request, result and callback of the job', hint: 'detail', run: () => setDetail((d) => !d) },
      { keys: ['s'], description: 'filter by status', hint: 'status', run: () => setStatus(STATUSES[(STATUSES.indexOf(status) + 1) % STATUSES.length] ?? null) },
      {
        keys: ['d'],
        description: "open the selected job's callback delivery in the Deliveries view (its attempt log, retry, reset)",
        hint: 'delivery',
        run: () => {
          if (!current) return;
          if (!current.delivery) setBanner({ tone: 'bad', text: `job ${shortId(current.ingest_job_id)} has no callback delivery${current.callback ? ' yet (it is written when the job finishes)' : ' (no callback target)'}` });
          else if (openView) openView('deliveries', current.delivery.id);
        },
      },
      // After d: the hint line keeps the first hints that fit, and opening the delivery is the more common.
      { keys: ['c'], description: 'cancel the selected QUEUED or RUNNING job (asks y)', hint: 'cancel', daemonAction: true, run: () => current && (current.status === 'QUEUED' || current.status === 'RUNNING') && cancelQuestion.ask(current) },
      { keys: ['escape'], description: 'close the detail or the message', run: () => (setDetail(false), setBanner(null)) },
    ],
    keyState,
  );

  const deliveryError = current?.delivery ? lastErrorText(current.delivery) : null;
  const failure = current?.status === 'FAILED' ? jobOutcome(current) : '';
  const failureLines = failure ? errorLines(failure, width) : [];
  const detailLines = detail && current ? 6 + failureLines.length + (deliveryError ? 1 : 0) : 0;
  const listHeight = Math.max(1, height - 5 - detailLines);
  const top = Math.max(0, Math.min(index - Math.floor(listHeight / 2), jobs.length - listHeight));
  const rows = jobs.map((j) => jobCells(j, nowMs));
  const layout = layoutColumns(jobColumns(rows), width);
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> JOBS</Text>
        <Text>{`  ${query.data ? `${query.data.total} ${status ?? 'in all statuses'}` : query.loading ? 'loading…' : ''} · newest first`}</Text>
      </Text>
      {query.error ? <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${query.error}`, width)}</Tinted></Text> : <Line width={width} text="" />}
      <Line width={width} text={layoutLine(layout, HEADERS)} dim />
      <Box flexDirection="column" height={listHeight}>
        {jobs.slice(top, top + listHeight).map((j, i) => (
          <Text key={j.ingest_job_id} wrap="truncate-end" inverse={top + i === index}>
            <Cells layout={layout} cells={rows[top + i]!} tinted={[STATUS_COLUMN]} tone={jobLabel(j.status).tone} />
          </Text>
        ))}
        {query.data && jobs.length === 0 ? <Line width={width} text=" No jobs. s changes the status filter." dim /> : null}
      </Box>
      {detailLines > 0 && current ? (
        <Box flexDirection="column" height={detailLines}>
          <Line width={width} text={` ${current.ingest_job_id} · tenant ${current.tenant_id}/${current.workspace_id} · dataset ${shortId(current.dataset_id)} · attempts ${current.attempts}`} bold />
          <Line width={width} text={`   request ${JSON.stringify(current.request_json)}`} />
          <Line width={width} text={`   result  ${JSON.stringify(current.result_json)}`} />
          {failureLines.map((line, i) => (
            <Text key={`e${i}`} wrap="truncate-end"><Tinted tone="bad">{line}</Tinted></Text>
          ))}
          <Line width={width} text={`   callback ${current.callback ? `${current.callback.url} · secret ${current.callback.secret ?? 'none'} · headers ${Object.keys(current.callback.headers).join(', ') || 'none'}` : 'none'}`} />
          <Line width={width} text={`   delivery ${current.delivery ? `${jobDeliveryText(current.delivery, nowMs)} · d opens it` : current.callback ? 'none yet: written when the job finishes' : 'none'}`} />
          {deliveryError ? <Line width={width} text={`   last error ${deliveryError}`} /> : null}
          <Line width={width} text={`   finished ${current.finished_at ? formatClockOrDate(current.finished_at, nowMs) : '-'}`} dim />
        </Box>
      ) : null}
      {cancelQuestion.asking ? (
        <ConfirmLine question={`cancel job ${shortId(cancelQuestion.asking.ingest_job_id)}`} yes="cancels it (callback reports CANCELLED)" no="keeps it" width={width} />
      ) : banner ? (
        <Text wrap="truncate-end"><Tinted tone={banner.tone}>{truncate(` ${banner.text}`, width)}</Tinted></Text>
      ) : (
        <Line width={width} text="" />
      )}
    </Box>
  );
}

const HEADERS = ['ID', 'KIND', 'STATUS', 'CREATED', 'OUTCOME'];
const STATUS_COLUMN = 2;

/** One job's row: short id, kind, status, when it was created, its outcome (rows, relations, or the error). */
function jobCells(j: JobView, nowMs: number): string[] {
  const label = jobLabel(j.status);
  return [shortId(j.ingest_job_id), j.job_kind, `${label.glyph} ${j.status}`, formatClockOrDate(j.created_at, nowMs), jobOutcome(j)];
}

/** The outcome takes what the others leave; narrow, the creation time goes first, then the kind; the status stays longest. */
function jobColumns(rows: readonly string[][]): ColumnSpec[] {
  return [
    { header: HEADERS[0]!, cells: cellsOf(rows, 0), keep: 8 },
    { header: HEADERS[1]!, cells: cellsOf(rows, 1), keep: 4 },
    // The widest status's width always, so the columns do not shift when one changes.
    { header: HEADERS[2]!, cells: [...cellsOf(rows, 2), '● SUCCEEDED'], keep: 9 },
    { header: HEADERS[3]!, cells: cellsOf(rows, 3), keep: 2 },
    { header: HEADERS[4]!, cells: cellsOf(rows, 4), grow: true, rest: true, keep: 6 },
  ];
}

/** A failed job's error in its detail, wrapped under its label (the list cuts it at 80 columns), the last line cut with `…`. */
function errorLines(error: string, width: number): string[] {
  const lead = '   error ';
  const room = Math.max(1, width - lead.length);
  const lines = wrapText(error, room);
  const shown = lines.length <= MAX_ERROR_LINES ? lines : [...lines.slice(0, MAX_ERROR_LINES - 1), truncate(lines.slice(MAX_ERROR_LINES - 1).join(' '), room)];
  return shown.map((line, i) => `${i === 0 ? lead : ' '.repeat(lead.length)}${line}`);
}

export const jobsView: ViewDefinition = {
  id: 'jobs',
  title: 'jobs',
  aliases: ['ingest', 'ingest-jobs'],
  description: 'ingest jobs: status, outcome, request/result/callback (secret ***), cancel',
  Component: JobsView,
};
