import { StatusSelect } from '../ui/status-select';
import { Fragment, useEffect, useState } from 'react';
import type { JobStatus, JobView } from '@portico/daemon/control';
import { JOB_GLYPH, JOB_TONE, jobOutcome } from '../deliveries/delivery-logic';
import { newestEventOf } from '../infosessions/session-table';
import { useControlClient, useLive } from '../live/live-context';
import { TimeText } from '../ui/time-text';
import '../styles/infosessions.css';
import type { ViewDefinition } from './view-definition';

const STATUSES: JobStatus[] = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];
const REFRESH_MS = 5_000;

function JobsView() {
  const client = useControlClient();
  const { events } = useLive();
  const changed = newestEventOf(events, ['job.state']);
  const [status, setStatus] = useState<JobStatus | ''>('');
  const [page, setPage] = useState<{ items: JobView[]; total: number } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    let cancelled = false;
    client.jobs.list.query({ ...(status ? { status } : {}), limit: 100, offset: 0 }).then(
      (p) => !cancelled && (setPage(p), setError(null)),
      (e: unknown) => !cancelled && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      cancelled = true;
    };
  }, [client, status, changed, tick]);

  const cancel = (job: JobView) => {
    if (!window.confirm(`Cancel job ${job.ingest_job_id}? Its callback (if any) reports CANCELLED.`)) return;
    client.jobs.cancel.mutate({ id: job.ingest_job_id, actor: 'web console' }).then(
      () => setTick((t) => t + 1),
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  };

  return (
    <section className="card" aria-labelledby="jobs-heading">
      <div className="card-heading">
        <h2 id="jobs-heading">Ingest jobs</h2>
        <p className="muted summary">{page ? `${page.total} jobs` : 'loading…'} · newest first · live</p>
      </div>
      <div className="filters">
        <StatusSelect value={status} statuses={STATUSES} onChange={setStatus} />
      </div>
      {error && <p className="error">{error}</p>}
      {page && page.items.length === 0 && <p className="muted">No jobs.</p>}
      {page && page.items.length > 0 && (
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Kind</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Outcome</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((j) => (
                <Fragment key={j.ingest_job_id}>
                  <tr data-testid={`job-${j.ingest_job_id}`}>
                    <th scope="row">
                      <code>{j.ingest_job_id.slice(0, 8)}</code> <span className="muted">{j.tenant_id}/{j.workspace_id}</span>
                    </th>
                    <td>{j.job_kind}</td>
                    <td className={`tone-${JOB_TONE[j.status]}`}>
                      {JOB_GLYPH[j.status]} {j.status}
                    </td>
                    <td>
                      <TimeText iso={j.created_at} />
                    </td>
                    <td className="wrap-anywhere">{jobOutcome(j)}</td>
                    <td>
                      <button type="button" aria-expanded={open === j.ingest_job_id} onClick={() => setOpen(open === j.ingest_job_id ? null : j.ingest_job_id)}>
                        Details
                      </button>{' '}
                      {(j.status === 'QUEUED' || j.status === 'RUNNING') && (
                        <button type="button" onClick={() => cancel(j)}>
                          Cancel
                        </button>
                      )}
                    </td>
                  </tr>
                  {open === j.ingest_job_id && (
                    <tr>
                      <td colSpan={6}>
                        <dl className="facts">
                          <dt>Job id</dt>
                          <dd>
                            <code>{j.ingest_job_id}</code>
                          </dd>
                          <dt>Dataset</dt>
                          <dd>
                            <code>{j.dataset_id}</code>
                          </dd>
                          <dt>Callback</dt>
                          <dd>{j.callback ? `${j.callback.url} · secret ${j.callback.secret ?? 'none'} · headers ${Object.keys(j.callback.headers).join(', ') || 'none'}` : 'none'}</dd>
                          <dt>Request</dt>
                          <dd>
                            <code className="wrap-anywhere">{JSON.stringify(j.request_json)}</code>
                          </dd>
                          <dt>Result</dt>
                          <dd>
                            <code className="wrap-anywhere">{JSON.stringify(j.result_json)}</code>
                          </dd>
                        </dl>
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export const view: ViewDefinition = { path: '/jobs', title: 'Jobs', order: 50, Component: JobsView };
