import { Fragment, useEffect, useState, type FormEvent } from 'react';
import { deliveryLabel, plural, shortId, tookText, triesDetail, triesText } from '@portico/daemon/display';
import type { AttemptLogEntry, DeliveryDetail, DeliveryStatus, DeliveryView } from '@portico/daemon/control';
import {
  attemptText,
  confirmText,
  DELIVERIES_URL,
  deliveryIdFromPath,
  deliveryPath,
  deliveryWhen,
  filterFromUrl,
  listInput,
  outcomeText,
  pruneSelected,
  resetPlan,
  retriedText,
  toggleSelected,
  type DeliveryFilter,
  type ResetScope,
} from '../deliveries/delivery-logic';
import { ResetQuestion, RetryQuestion } from '../deliveries/delivery-questions';
import { failureText } from '../api/failure-text';
import { useControlQuery } from '../api/use-control-query';
import { ActionButton } from '../live/action-button';
import { useControlClient } from '../live/live-context';
import { LiveMark } from '../live/live-mark';
import { NAVIGATED, useLocationPath } from '../router/use-location';
import { useUrlState } from '../router/use-url-state';
import { StatusSelect } from '../ui/status-select';
import { TimeText } from '../ui/time-text';
import { UrlText } from '../ui/url-text';
import '../styles/infosessions.css';
import '../deliveries/deliveries.css';
import type { ViewDefinition } from './view-definition';

const PAGE = 50;
const REFRESH_MS = 5_000;
const STATUSES: DeliveryStatus[] = ['PENDING', 'DELIVERED', 'DEAD'];

interface Question {
  selector: ReturnType<typeof resetPlan>['selector'];
  what: string;
  count: number;
}

function DeliveriesView() {
  const client = useControlClient();
  // The filter and the delivery whose attempt log is open live in the address: reload, Back and links keep them.
  const [url, setUrl] = useUrlState(DELIVERIES_URL);
  const filter = filterFromUrl(url);
  const [draft, setDraft] = useState<DeliveryFilter>(filter);
  const [offset, setOffset] = useState(0);
  const [actionError, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [question, setQuestion] = useState<Question | null>(null);
  const [retryQuestion, setRetryQuestion] = useState<DeliveryView | null>(null);
  const { input, problem } = listInput(filter, PAGE, offset);
  const list = useControlQuery(
    (c) => {
      if (problem) throw new Error(problem);
      return c.deliveries.list.query(input);
    },
    [JSON.stringify(input), problem],
    { pollMs: REFRESH_MS, refetchOn: ['delivery.state'] },
  );
  const page = problem ? null : list.data;
  const openId = url.delivery || null;
  const detail = useControlQuery((c) => c.deliveries.get.query({ id: openId ?? '' }), [openId], {
    enabled: openId !== null,
    pollMs: REFRESH_MS,
    refetchOn: ['delivery.state'],
  });
  const open: DeliveryDetail | null = detail.data && detail.data.id === openId ? detail.data : null;
  const error = actionError ?? list.error ?? (detail.error && openId ? `Cannot open delivery ${openId}: ${detail.error}` : null);
  const refresh = () => (list.refresh(), detail.refresh());

  // A filter changed by Back/Forward or a link shows in the form too.
  const filterKey = `${url.status}|${url.job}|${url.url}`;
  useEffect(() => {
    setDraft(filterFromUrl(url));
    setOffset(0);
    setSelected(new Set());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [filterKey]);
  useEffect(() => {
    if (list.data) setSelected((s) => pruneSelected(s, list.data!.items));
  }, [list.data]);

  // An older `/deliveries/<id>` link: that delivery, filtered to its job, in today's address form.
  const legacy = deliveryIdFromPath(useLocationPath());
  useEffect(() => {
    if (!legacy) return;
    let cancelled = false;
    const replace = (to: string) => {
      if (cancelled) return;
      history.replaceState(history.state, '', to);
      dispatchEvent(new Event(NAVIGATED));
    };
    client.deliveries.get.query({ id: legacy }).then(
      (d) => replace(deliveryPath(d.id, d.ingest_job_id)),
      () => replace(`/deliveries?delivery=${legacy}`),
    );
    return () => {
      cancelled = true;
    };
  }, [client, legacy]);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setUrl({ status: draft.status, job: draft.jobId.trim(), url: draft.url.trim() });
    // The same filter again reads again: the operator asked (and, while the daemon is away, sees why it failed).
    list.refresh();
  };
  const ask = (scope: ResetScope) => {
    const plan = resetPlan(scope);
    client.deliveries.previewReset.query(plan.selector).then(
      ({ count }) => {
        setRetryQuestion(null);
        // Nothing to reset is an answer, not a question.
        if (count === 0) {
          setQuestion(null);
          setNotice(confirmText(0, plan.what));
          return;
        }
        setQuestion({ ...plan, count });
      },
      (e: unknown) => setError(failureText(e)),
    );
  };
  const reset = () => {
    const q = question;
    setQuestion(null);
    if (!q) return;
    client.deliveries.resetDead.mutate({ ...q.selector, actor: 'web console' }).then(
      ({ count }) => {
        setNotice(`Reset ${plural(count, 'delivery', 'deliveries')} to PENDING.`);
        setSelected(new Set());
        setError(null);
        refresh();
      },
      (e: unknown) => setError(failureText(e)),
    );
  };
  const retry = () => {
    const d = retryQuestion;
    setRetryQuestion(null);
    if (!d) return;
    client.deliveries.retryNow.mutate({ id: d.id, actor: 'web console' }).then(
      () => {
        setNotice(retriedText(d.id));
        setError(null);
        refresh();
      },
      (e: unknown) => setError(failureText(e)),
    );
  };
  // A history entry per delivery opened: Back closes it again.
  const show = (d: DeliveryView) => setUrl({ delivery: open?.id === d.id ? '' : d.id });

  return (
    <div className="stack">
      <section className="card" aria-labelledby="deliveries-heading">
        <div className="card-heading">
          <h2 id="deliveries-heading">Webhook deliveries</h2>
          <p className="muted summary">{page ? `${page.total} matching` : 'loading…'} · <LiveMark /></p>
        </div>
        <form className="filters" onSubmit={apply} aria-label="Filter deliveries">
          <StatusSelect value={draft.status} statuses={STATUSES} onChange={(status) => setDraft({ ...draft, status })} />
          <label>
            Job <input value={draft.jobId} onChange={(e) => setDraft({ ...draft, jobId: e.target.value })} placeholder="job id" size={20} />
          </label>
          <label>
            URL contains <input value={draft.url} onChange={(e) => setDraft({ ...draft, url: e.target.value })} placeholder="hooks.example.com" size={20} />
          </label>
          <button type="submit">Filter</button>
          <ActionButton type="button" onClick={() => ask({ kind: 'selected', ids: [...selected] })} disabled={selected.size === 0}>
            Reset {selected.size} selected
          </ActionButton>
          <ActionButton type="button" onClick={() => ask({ kind: 'matching', filter })}>
            Reset all DEAD matching…
          </ActionButton>
        </form>
        {question && <ResetQuestion count={question.count} what={question.what} onReset={reset} onKeep={() => setQuestion(null)} />}
        {retryQuestion && <RetryQuestion delivery={retryQuestion} onRetry={retry} onKeep={() => setRetryQuestion(null)} />}
        {notice && (
          <p className="notice" role="status">
            {notice}{' '}
            <button type="button" onClick={() => setNotice(null)}>
              OK
            </button>
          </p>
        )}
        {error && <p className="error">{error}</p>}
        {page && page.items.length === 0 && <p className="muted">No deliveries match.</p>}
        {page && page.items.length > 0 && (
          <div className="table-scroll">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col" aria-label="Select" />
                  <th scope="col">Delivery</th>
                  <th scope="col">Status, tries</th>
                  <th scope="col">Last outcome, when</th>
                  <th scope="col">URL</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((d) => (
                  <Fragment key={d.id}>
                    <tr data-testid={`delivery-${d.id}`}>
                      <td>
                        {d.status === 'DEAD' && <input type="checkbox" aria-label={`select ${d.id}`} checked={selected.has(d.id)} onChange={() => setSelected((s) => toggleSelected(s, d))} />}
                      </td>
                      <th scope="row">
                        <code>{shortId(d.id)}</code> <span className="muted">job {shortId(d.ingest_job_id)}</span>
                      </th>
                      <td>
                        <span className={`tone-${deliveryLabel(d.status).tone} nowrap`}>
                          {deliveryLabel(d.status).glyph} {d.status}
                        </span>
                        {/* Under the status, not a column of its own: every column stays in the card at 800 px. */}
                        <span className="since" title={d.attempts > d.attempts_in_round ? `${d.attempts} attempts in all, over resets` : undefined}>
                          {triesText(d)} tries
                        </span>
                      </td>
                      <td>
                        {outcomeText(d)}
                        <DeliveryWhen delivery={d} />
                      </td>
                      <td className="cell-url">
                        <UrlText url={d.callback_url} />
                      </td>
                      <td>
                        <button type="button" onClick={() => show(d)} aria-expanded={open?.id === d.id}>
                          Attempts
                        </button>{' '}
                        {d.status === 'DEAD' && (
                          <ActionButton type="button" onClick={() => ask({ kind: 'one', id: d.id })}>
                            Reset
                          </ActionButton>
                        )}
                        {d.status === 'PENDING' && (
                          <ActionButton type="button" onClick={() => (setQuestion(null), setRetryQuestion(d))} aria-label={`Retry delivery ${shortId(d.id)} now`}>
                            Retry now
                          </ActionButton>
                        )}
                      </td>
                    </tr>
                    {open?.id === d.id && (
                      <tr>
                        <td colSpan={6}>
                          <AttemptLog delivery={open} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {page && page.total > PAGE && (
          <p>
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Newer
            </button>{' '}
            {offset + 1}–{Math.min(offset + PAGE, page.total)} of {page.total}{' '}
            <button type="button" disabled={offset + PAGE >= page.total} onClick={() => setOffset(offset + PAGE)}>
              Older
            </button>
          </p>
        )}
      </section>
    </div>
  );
}

/** Under the outcome (a column of its own would push Actions off the card at 800 px): when it is next tried, or when it ended. */
function DeliveryWhen({ delivery }: { delivery: DeliveryView }) {
  const when = deliveryWhen(delivery);
  if (!when) return null;
  return (
    <span className="since">
      {when.word} <TimeText iso={when.at} />
    </span>
  );
}

function AttemptLog({ delivery }: { delivery: DeliveryDetail }) {
  const headingId = `attempts-${delivery.id}`;
  return (
    <div data-testid="attempt-log" role="region" aria-labelledby={headingId}>
      <h3 id={headingId} className="wrap-anywhere">
        Attempts of delivery <code>{delivery.id}</code> to {delivery.callback_url}
      </h3>
      <p className="muted">
        Job <code>{delivery.ingest_job_id}</code> · {delivery.status} · attempt {triesDetail(delivery)} · {delivery.event_type} · {delivery.signed ? 'signed' : 'unsigned'} · headers{' '}
        {Object.keys(delivery.headers).join(', ') || 'none'} (values hidden)
      </p>
      {delivery.attempt_log.length === 0 ? (
        <p className="muted">No attempts yet.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Started</th>
              <th scope="col">Took</th>
              <th scope="col">Outcome</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {delivery.attempt_log.map((entry) => (
              <LogRow key={entry.kind === 'attempt' ? `a${entry.attempt}` : `${entry.kind}${entry.at}`} entry={entry} />
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** An attempt, or an operator's action between attempts (a reset starts a new round; numbers go on). */
function LogRow({ entry }: { entry: AttemptLogEntry }) {
  if (entry.kind !== 'attempt') {
    return (
      <tr className="log-mark" data-testid="log-mark">
        <td>—</td>
        <td>
          <TimeText iso={entry.at} />
        </td>
        <td colSpan={3}>
          {entry.kind === 'reset' ? `Reset to PENDING by ${entry.actor}: a new round after attempt #${entry.attempts_before}` : `Retry now by ${entry.actor}`}
        </td>
      </tr>
    );
  }
  const t = attemptText(entry);
  return (
    <tr>
      <td>{entry.attempt}</td>
      <td>
        <TimeText iso={entry.started_at} />
      </td>
      <td>{tookText(entry.duration_ms)}</td>
      <td>{t.outcome}</td>
      <td className="wrap-anywhere">{t.detail}</td>
    </tr>
  );
}

export const view: ViewDefinition = { path: '/deliveries', title: 'Deliveries', order: 55, Component: DeliveriesView };
