import type { JobDeliveryView, JobView } from '@portico/daemon/control';
import { deliveryLabel, lastErrorText, shortId, triesDetail } from '@portico/daemon/display';
import { deliveryPath, deliveryWhen } from '../deliveries/delivery-logic';
import { AppLink } from '../router/app-link';
import { TimeText } from '../ui/time-text';

/** What a job's Details row shows: ids, runs and finish (as the terminal's detail), callback, delivery, request and result. */
export function JobDetail({ job: j }: { job: JobView }) {
  return (
    <dl className="facts">
      <dt>Job id</dt>
      <dd>
        <code>{j.ingest_job_id}</code>
      </dd>
      <dt>Dataset</dt>
      <dd>
        <code>{j.dataset_id}</code>
      </dd>
      <dt>Attempts</dt>
      <dd>{j.attempts}</dd>
      <dt>Finished</dt>
      <dd>{j.finished_at ? <TimeText iso={j.finished_at} /> : <span className="muted">not yet ({j.status})</span>}</dd>
      <dt>Callback</dt>
      <dd className="wrap-anywhere">{j.callback ? `${j.callback.url} · secret ${j.callback.secret ?? 'none'} · headers ${Object.keys(j.callback.headers).join(', ') || 'none'}` : 'none'}</dd>
      <dt>Delivery</dt>
      <dd data-testid="job-delivery">{j.delivery ? <JobDelivery delivery={j.delivery} jobId={j.ingest_job_id} /> : j.callback ? 'None yet: written when the job finishes.' : 'None (no callback target).'}</dd>
      <dt>Request</dt>
      <dd>
        <code className="wrap-anywhere">{JSON.stringify(j.request_json)}</code>
      </dd>
      <dt>Result</dt>
      <dd>
        <code className="wrap-anywhere">{JSON.stringify(j.result_json)}</code>
      </dd>
    </dl>
  );
}

/** The job's callback delivery: state, attempts, next attempt or finish, last error, and a link to it. */
function JobDelivery({ delivery: d, jobId }: { delivery: JobDeliveryView; jobId: string }) {
  const error = lastErrorText(d);
  const when = deliveryWhen(d);
  return (
    <>
      <span className={`tone-${deliveryLabel(d.status).tone} nowrap`}>
        {deliveryLabel(d.status).glyph} {d.status}
      </span>{' '}
      · attempt {triesDetail(d)}
      {when && (
        <>
          {' '}
          · {when.word} <TimeText iso={when.at} />
        </>
      )}
      {error && <span className="wrap-anywhere"> · last error: {error}</span>} · <AppLink to={deliveryPath(d.id, jobId)}>Open delivery {shortId(d.id)}</AppLink>
    </>
  );
}
