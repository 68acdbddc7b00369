import { Fragment, useState } from 'react';
import type { JobStatus, JobView } from '@portico/daemon/control';
import { failureText } from '../api/failure-text';
import { useControlQuery } from '../api/use-control-query';
import { jobLabel, jobOutcome, plural, shortId } from '@portico/daemon/display';
import { JobDetail } from '../jobs/job-detail';
import { ActionButton } from '../live/action-button';
import { useControlClient } from '../live/live-context';
import { LiveMark } from '../live/live-mark';
import { useUrlState } from '../router/use-url-state';
import { ConfirmQuestion } from '../ui/confirm-question';
import { StatusSelect } from '../ui/status-select';
import { TimeText } from '../ui/time-text';
import '../styles/infosessions.css';
import type { ViewDefinition } from './view-definition';

const STATUSES: JobStatus[] = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];
/** Workers in other processes move jobs too; re-read this often while the page is open. */
const REFRESH_MS = 5_000;
/** Kept in the address: `/jobs?status=FAILED&job=<id>` (the filter and the job whose details are open). */
const URL_STATE = { status: '', job: '' };

function JobsView() {
  const client = useControlClient();
  const [url, setUrl] = useUrlState(URL_STATE);
  const status = (STATUSES as string[]).includes(url.status) ? (url.status as JobStatus) : '';
  // A job's detail shows its callback delivery, so delivery events re-read the list too.
  const jobs = useControlQuery((c) => c.jobs.list.query({ ...(status ? { status } : {}), limit: 100, offset: 0 }), [status], {
    pollMs: REFRESH_MS,
    refetchOn: ['job.state', 'delivery.state'],
  });
  const page = jobs.data;
  const [cancelling, setCancelling] = useState<JobView | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const error = actionError ?? jobs.error;
  const open = url.job || null;

  const cancel = (job: JobView) => {
    setCancelling(null);
    client.jobs.cancel.mutate({ id: job.ingest_job_id, actor: 'web console' }).then(
      () => (setActionError(null), jobs.refresh()),
      (e: unknown) => setActionError(failureText(e)),
    );
  };

  return (
    <section className="card" aria-labelledby="jobs-heading">
      <div className="card-heading">
        <h2 id="jobs-heading">Ingest jobs</h2>
        <p className="muted summary">{page ? plural(page.total, 'job') : 'loading…'} · newest first · <LiveMark /></p>
      </div>
      <div className="filters">
        <StatusSelect value={status} statuses={STATUSES} onChange={(next) => setUrl({ status: next })} />
      </div>
      {cancelling && (
        <ConfirmQuestion confirm="Cancel the job" keep="Keep it running" onConfirm={() => cancel(cancelling)} onKeep={() => setCancelling(null)} testId="cancel-question">
          Cancel job <code>{cancelling.ingest_job_id}</code> ({cancelling.job_kind}, {cancelling.status})? Its callback (if any) reports CANCELLED.
        </ConfirmQuestion>
      )}
      {error && <p className="error">{error}</p>}
      {open && page && !page.items.some((j) => j.ingest_job_id === open) && <p className="muted">Job {open} is not in this list: another status filter, or older than the newest 100.</p>}
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
                      <code>{shortId(j.ingest_job_id)}</code> <span className="muted">{j.tenant_id}/{j.workspace_id}</span>
                    </th>
                    <td>{j.job_kind}</td>
                    <td className={`tone-${jobLabel(j.status).tone} nowrap`}>
                      {jobLabel(j.status).glyph} {j.status}
                    </td>
                    <td>
                      <TimeText iso={j.created_at} />
                    </td>
                    <td className="wrap-anywhere">{jobOutcome(j)}</td>
                    <td>
                      <button type="button" aria-expanded={open === j.ingest_job_id} onClick={() => setUrl({ job: open === j.ingest_job_id ? '' : j.ingest_job_id })}>
                        Details
                      </button>{' '}
                      {(j.status === 'QUEUED' || j.status === 'RUNNING') && (
                        <ActionButton type="button" onClick={() => setCancelling(j)} aria-label={`Cancel job ${shortId(j.ingest_job_id)}`}>
                          Cancel
                        </ActionButton>
                      )}
                    </td>
                  </tr>
                  {open === j.ingest_job_id && (
                    <tr>
                      <td colSpan={6}>
                        <JobDetail job={j} />
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
