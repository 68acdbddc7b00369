import { StatusSelect } from '../ui/status-select';
import { Fragment, useEffect, useState, type FormEvent } from 'react';
import type { DeliveryDetail, DeliveryStatus, DeliveryView } from '@portico/daemon/control';
import { attemptText, confirmText, durationText, EMPTY_FILTER, listInput, outcomeText, pruneSelected, resetPlan, STATUS_GLYPH, STATUS_TONE, toggleSelected, type DeliveryFilter, type ResetScope } from '../deliveries/delivery-logic';
import { newestEventOf } from '../infosessions/session-table';
import { useControlClient, useLive } from '../live/live-context';
import { TimeText } from '../ui/time-text';
import '../styles/infosessions.css';
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
  const { events } = useLive();
  const changed = newestEventOf(events, ['delivery.state']);
  const [draft, setDraft] = useState<DeliveryFilter>(EMPTY_FILTER);
  const [filter, setFilter] = useState<DeliveryFilter>(EMPTY_FILTER);
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ items: DeliveryView[]; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [open, setOpen] = useState<DeliveryDetail | null>(null);
  const [question, setQuestion] = useState<Question | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const { input, problem } = listInput(filter, PAGE, offset);
  useEffect(() => {
    if (problem) return setError(problem);
    let cancelled = false;
    client.deliveries.list.query(input).then(
      (p) => {
        if (cancelled) return;
        setPage(p);
        setError(null);
        setSelected((s) => pruneSelected(s, p.items));
      },
      (e: unknown) => !cancelled && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, JSON.stringify(input), problem, changed, tick]);
  useEffect(() => {
    if (!open) return;
    let cancelled = false;
    client.deliveries.get.query({ id: open.id }).then((d) => !cancelled && setOpen(d), () => {});
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, changed]);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilter(draft);
    setOffset(0);
    setSelected(new Set());
  };
  const ask = (scope: ResetScope) => {
    const plan = resetPlan(scope);
    client.deliveries.previewReset.query(plan.selector).then(
      ({ count }) => setQuestion({ ...plan, count }),
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  };
  const reset = () => {
    const q = question;
    setQuestion(null);
    if (!q || q.count === 0) return;
    client.deliveries.resetDead.mutate({ ...q.selector, actor: 'web console' }).then(
      ({ count }) => {
        setNotice(`Reset ${count} ${count === 1 ? 'delivery' : 'deliveries'} to PENDING.`);
        setSelected(new Set());
        setTick((t) => t + 1);
      },
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  };
  const show = (d: DeliveryView) => {
    if (open?.id === d.id) return setOpen(null);
    client.deliveries.get.query({ id: d.id }).then(setOpen, (e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  };

  return (
    <div className="stack">
      <section className="card" aria-labelledby="deliveries-heading">
        <div className="card-heading">
          <h2 id="deliveries-heading">Webhook deliveries</h2>
          <p className="muted summary">{page ? `${page.total} matching` : 'loading…'} · live</p>
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
          <button type="button" onClick={() => ask({ kind: 'selected', ids: [...selected] })} disabled={selected.size === 0}>
            Reset {selected.size} selected
          </button>
          <button type="button" onClick={() => ask({ kind: 'matching', filter })}>
            Reset all DEAD matching…
          </button>
        </form>
        {question && (
          <div className="notice" role="alertdialog" aria-labelledby="reset-question" data-testid="reset-question">
            <p id="reset-question">{confirmText(question.count, question.what)}</p>
            {question.count > 0 && (
              <button type="button" onClick={reset}>
                Reset {question.count}
              </button>
            )}{' '}
            <button type="button" onClick={() => setQuestion(null)}>
              {question.count > 0 ? 'Keep them' : 'Close'}
            </button>
          </div>
        )}
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
                  <th scope="col">Status</th>
                  <th scope="col">Tries</th>
                  <th scope="col">Last outcome</th>
                  <th scope="col">Next / finished</th>
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
                        <code>{d.id.slice(0, 8)}</code> <span className="muted">job {d.ingest_job_id.slice(0, 8)}</span>
                      </th>
                      <td className={`tone-${STATUS_TONE[d.status]}`}>
                        {STATUS_GLYPH[d.status]} {d.status}
                      </td>
                      <td>{d.attempts}/5</td>
                      <td>{outcomeText(d)}</td>
                      <td>{d.status === 'PENDING' ? <TimeText iso={d.next_attempt_at} /> : d.finished_at ? <TimeText iso={d.finished_at} /> : '—'}</td>
                      <td className="wrap-anywhere">{d.callback_url}</td>
                      <td>
                        <button type="button" onClick={() => show(d)} aria-expanded={open?.id === d.id}>
                          Attempts
                        </button>{' '}
                        {d.status === 'DEAD' && (
                          <button type="button" onClick={() => ask({ kind: 'one', id: d.id })}>
                            Reset
                          </button>
                        )}
                      </td>
                    </tr>
                    {open?.id === d.id && (
                      <tr>
                        <td colSpan={8}>
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

function AttemptLog({ delivery }: { delivery: DeliveryDetail }) {
  return (
    <div data-testid="attempt-log">
      <p className="muted">
        {delivery.event_type} · {delivery.signed ? 'signed' : 'unsigned'} · headers {Object.keys(delivery.headers).join(', ') || 'none'} (values hidden)
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
            {delivery.attempt_log.map((a) => {
              const t = attemptText(a);
              return (
                <tr key={a.attempt}>
                  <td>{a.attempt}</td>
                  <td>
                    <TimeText iso={a.started_at} />
                  </td>
                  <td>{durationText(a.duration_ms)}</td>
                  <td>{t.outcome}</td>
                  <td className="wrap-anywhere">{t.detail}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}

export const view: ViewDefinition = { path: '/deliveries', title: 'Deliveries', order: 55, Component: DeliveriesView };
