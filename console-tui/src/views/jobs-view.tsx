import { useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { JobStatus, JobView } from '@portico/daemon/control';
import { fit, truncate } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { useNow } from '../shell/use-now.js';
import { lastEventOf, problemText, useControlQuery } from './use-control-query.js';
import type { ViewDefinition, ViewProps } from './view.js';

const ID_WIDTH = 8;
const KIND_WIDTH = 16;
const STATUS_WIDTH = 11;
const WHEN_WIDTH = 16;
const REFRESH_MS = 5_000;
const STATUSES: ReadonlyArray<JobStatus | null> = [null, 'QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];
const TONE = { QUEUED: 'idle', RUNNING: 'busy', SUCCEEDED: 'good', FAILED: 'bad', CANCELLED: 'idle' } as const;
const GLYPH = { QUEUED: '○', RUNNING: '◐', SUCCEEDED: '●', FAILED: '✗', CANCELLED: '–' } as const;

/** The one-line outcome of a job: its error, row count, or what it found. */
export function jobOutcome(job: Pick<JobView, 'status' | 'result_json'>): string {
  const r = job.result_json;
  if (typeof r.error === 'string') return r.error;
  if (typeof r.row_count === 'number') return `${r.row_count} rows`;
  if (Array.isArray(r.relations)) return `${r.relations.length} relations`;
  if (Array.isArray(r.tables)) return `${r.tables.length} tables`;
  return '';
}

function JobsView({ live, source, width, height, visible, keyState }: ViewProps): ReactNode {
  const [status, setStatus] = useState<JobStatus | null>(null);
  const [selected, setSelected] = useState(0);
  const [detail, setDetail] = useState(false);
  const [confirmCancel, setConfirmCancel] = useState<string | null>(null);
  const [banner, setBanner] = useState<{ tone: 'good' | 'bad'; text: string } | null>(null);
  const [bump, setBump] = useState(0);
  const tick = Math.floor(useNow(REFRESH_MS) / REFRESH_MS);
  const api = source.api;
  const changed = lastEventOf(live.events, ['job.state']);
  const query = useControlQuery(visible, api ? () => api.jobs.list.query({ status: status ?? undefined, limit: 200, offset: 0 }) : null, [status, changed, bump, tick, live.status.bootId]);
  const jobs: JobView[] = query.data?.items ?? [];
  const index = Math.min(selected, Math.max(0, jobs.length - 1));
  const current = jobs[index];

  useKeyScope(
    'jobs',
    'Jobs',
    [
      { keys: ['up', 'k'], label: '↑/k', description: 'previous job', run: () => setSelected(Math.max(0, index - 1)) },
      { keys: ['down', 'j'], label: '↓/j', description: 'next job', hint: 'move', run: () => setSelected(Math.min(jobs.length - 1, index + 1)) },
      { keys: ['enter'], description: 'show or hide the request, result and callback of the job', hint: 'detail', run: () => setDetail((d) => !d) },
      { keys: ['s'], description: 'filter by status', hint: 'status', run: () => setStatus(STATUSES[(STATUSES.indexOf(status) + 1) % STATUSES.length] ?? null) },
      { keys: ['c'], description: 'cancel the selected QUEUED or RUNNING job (asks y)', hint: 'cancel', run: () => current && (current.status === 'QUEUED' || current.status === 'RUNNING') && setConfirmCancel(current.ingest_job_id) },
      {
        keys: ['y'],
        description: 'confirm the cancel',
        run: () => {
          const id = confirmCancel;
          setConfirmCancel(null);
          if (!id || !api) return;
          api.jobs.cancel.mutate({ id, actor: 'tui' }).then(
            (job) => (setBanner({ tone: 'good', text: `job ${job.ingest_job_id.slice(0, 8)} is ${job.status}` }), setBump((b) => b + 1)),
            (error: unknown) => setBanner({ tone: 'bad', text: `cancel failed: ${problemText(error)}` }),
          );
        },
      },
      { keys: ['escape'], description: 'close the detail, the question or the message', run: () => (setDetail(false), setConfirmCancel(null), setBanner(null)) },
    ],
    keyState,
  );

  const outcomeWidth = Math.max(8, width - ID_WIDTH - KIND_WIDTH - STATUS_WIDTH - WHEN_WIDTH - 10);
  const detailLines = detail && current ? 5 : 0;
  const listHeight = Math.max(1, height - 5 - detailLines);
  const top = Math.max(0, Math.min(index - Math.floor(listHeight / 2), jobs.length - listHeight));
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> JOBS</Text>
        <Text>{`  ${query.data ? `${query.data.total} ${status ?? 'in all statuses'}` : query.loading ? 'loading…' : ''} · newest first`}</Text>
      </Text>
      {query.error ? <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${query.error}`, width)}</Tinted></Text> : <Line width={width} text="" />}
      <Line width={width} text={` ${fit('ID', ID_WIDTH)}  ${fit('KIND', KIND_WIDTH)}  ${fit('STATUS', STATUS_WIDTH)}  ${fit('CREATED', WHEN_WIDTH)}  OUTCOME`} dim />
      <Box flexDirection="column" height={listHeight}>
        {jobs.slice(top, top + listHeight).map((j, i) => (
          <Text key={j.ingest_job_id} wrap="truncate-end" inverse={top + i === index}>
            {` ${fit(j.ingest_job_id, ID_WIDTH)}  ${fit(j.job_kind, KIND_WIDTH)}  `}
            <Tinted tone={TONE[j.status]}>{fit(`${GLYPH[j.status]} ${j.status}`, STATUS_WIDTH)}</Tinted>
            {`  ${fit(j.created_at.slice(0, 16).replace('T', ' '), WHEN_WIDTH)}  ${fit(jobOutcome(j), outcomeWidth)}`}
          </Text>
        ))}
        {query.data && jobs.length === 0 ? <Line width={width} text=" No jobs. s changes the status filter." dim /> : null}
      </Box>
      {detailLines > 0 && current ? (
        <Box flexDirection="column" height={detailLines}>
          <Line width={width} text={` ${current.ingest_job_id} · tenant ${current.tenant_id}/${current.workspace_id} · dataset ${current.dataset_id.slice(0, 8)} · attempts ${current.attempts}`} bold />
          <Line width={width} text={`   request ${JSON.stringify(current.request_json)}`} />
          <Line width={width} text={`   result  ${JSON.stringify(current.result_json)}`} />
          <Line width={width} text={`   callback ${current.callback ? `${current.callback.url} · secret ${current.callback.secret ?? 'none'} · headers ${Object.keys(current.callback.headers).join(', ') || 'none'}` : 'none'}`} />
          <Line width={width} text={`   finished ${current.finished_at ?? '-'}`} dim />
        </Box>
      ) : null}
      {confirmCancel ? (
        <Line width={width} text={` cancel job ${confirmCancel.slice(0, 8)}? y cancels it (its callback reports CANCELLED), Esc keeps it`} bold />
      ) : banner ? (
        <Text wrap="truncate-end"><Tinted tone={banner.tone}>{truncate(` ${banner.text}`, width)}</Tinted></Text>
      ) : (
        <Line width={width} text="" />
      )}
    </Box>
  );
}

export const jobsView: ViewDefinition = {
  id: 'jobs',
  title: 'jobs',
  aliases: ['ingest', 'ingest-jobs'],
  description: 'ingest jobs: status, outcome, request/result/callback (secret ***), cancel',
  Component: JobsView,
};
