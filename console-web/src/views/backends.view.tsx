import { Fragment, useEffect } from 'react';
import type { BackendView } from '@portico/daemon/control';
import { BACKEND_STATES, BACKENDS_URL, filterBackends } from '../backends/backend-filter';
import { agoText, backendLabel } from '@portico/daemon/display';
import { applyUpdate, mergeRead, type BackendsData } from '../backends/backend-updates';
import { useControlQuery } from '../api/use-control-query';
import { useControlClient } from '../live/live-context';
import { LiveMark } from '../live/live-mark';
import { useNow } from '../live/use-now';
import { useUrlState } from '../router/use-url-state';
import { StateBadge } from '../ui/state-badge';
import { DetailCard } from '../ui/detail-card';
import { ListFilter } from '../ui/list-filter';
import { TimeText } from '../ui/time-text';
import { UrlText } from '../ui/url-text';
import type { ViewDefinition } from './view-definition';

function BackendsView() {
  const client = useControlClient();
  const now = useNow(1_000);
  const read = useControlQuery((c) => Promise.all([c.backends.list.query(), c.backends.timeline.query()]).then(([backends, timeline]) => ({ backends, timeline })), [], {
    refetchOn: ['config.reloaded'],
    merge: mergeRead,
  });
  const data: BackendsData | null = read.data;
  // The filter and the backend looked at live in the address: reload, Back and links keep them.
  const [url, setUrl] = useUrlState(BACKENDS_URL);
  const { refresh, update } = read;

  // Each finished check and state change as it happens; a (re)started subscription re-reads the list.
  useEffect(() => {
    const subscription = client.backends.changes.subscribe(undefined, {
      onStarted: () => refresh(),
      onData: ({ data: change }) => update((d) => applyUpdate(d, change)),
      onError: () => refresh(),
    });
    return () => subscription.unsubscribe();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client]);
  const error = read.error;

  if (!data) return <div className="stack">{error ? <p className="error">{error}</p> : <p className="muted">Loading…</p>}</div>;
  const shown = filterBackends(data.backends, url.q, url.state);
  const selected = url.backend ? (data.backends.find((b) => b.name === url.backend) ?? null) : null;
  const timeline = selected ? data.timeline.filter((c) => c.backend === selected.name) : data.timeline;
  return (
    <div className="stack">
      <section className="card" aria-labelledby="backends-heading">
        <div className="card-heading">
          <h2 id="backends-heading">Backend health</h2>
          <p className="muted summary">
            {shown.length === data.backends.length ? data.backends.length : `${shown.length} of ${data.backends.length}`} in the active configuration · <LiveMark />
          </p>
        </div>
        <ListFilter search={url.q} searchHint="name or origin" onSearch={(q) => setUrl({ q }, 'typing')} choiceLabel="State" choice={url.state} choices={BACKEND_STATES} onChoice={(state) => setUrl({ state })} onClear={() => setUrl({ q: '', state: '' })} />
        {error && <p className="error">{error}</p>}
        {url.backend && !selected && <p className="muted">There is no backend {url.backend} in the active configuration.</p>}
        {data.backends.length === 0 ? (
          <p className="muted">The active configuration defines no backend.</p>
        ) : shown.length === 0 ? (
          <p className="muted">No backend matches these filters.</p>
        ) : (
          <div className="table-scroll">
            <table className="table" data-testid="backends">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">State</th>
                  <th scope="col">Last check</th>
                  <th scope="col">Failures</th>
                  <th scope="col">Latency</th>
                  <th scope="col">Origin</th>
                  <th scope="col">Used by</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((b) => (
                  <tr key={b.name} data-testid={`backend-${b.name}`} data-state={b.health.checked ? b.health.state : 'unchecked'} className={selected?.name === b.name ? 'selected' : undefined} aria-selected={selected?.name === b.name}>
                    <th scope="row">
                      <button type="button" className="link-button" onClick={() => setUrl({ backend: selected?.name === b.name ? '' : b.name })} aria-expanded={selected?.name === b.name}>
                        {b.name}
                      </button>
                      {b.useWhenUnhealthy && <span className="muted"> (use_when_unhealthy)</span>}
                    </th>
                    <td title={b.health.error || undefined}>
                      <StateBadge label={backendLabel(b.health)} />
                      {b.health.error && <span className="since"> {b.health.error}</span>}
                    </td>
                    <td className="nowrap">{b.health.checked ? agoText(b.health.lastCheckAt, now) : '–'}</td>
                    <td>{b.health.failures}</td>
                    <td>{b.health.latencyMs === null ? '–' : `${Math.round(b.health.latencyMs)} ms`}</td>
                    <td className="cell-url">
                      <code>{b.origin ? <UrlText url={b.origin} /> : '(url per request)'}</code>
                    </td>
                    <td className="cell-url">{b.usedBy.length > 0 ? <UsedBy paths={b.usedBy} lines /> : <span className="muted">no endpoint</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {selected && <BackendDetail backend={selected} now={now} onClose={() => setUrl({ backend: '' })} />}
      </section>
      <section className="card" aria-labelledby="timeline-heading">
        <div className="card-heading">
          <h2 id="timeline-heading">State changes{selected ? ` of ${selected.name}` : ''}</h2>
          <p className="muted summary">newest first</p>
        </div>
        {timeline.length === 0 ? (
          <p className="muted">No state change yet.</p>
        ) : (
          <ul className="events" data-testid="health-timeline">
            {timeline.map((c, i) => (
              <li key={`${c.at}-${c.backend}-${i}`}>
                <TimeText iso={c.at} /> <strong>{c.backend}</strong> <StateBadge label={backendLabel({ state: c.from, checked: true })} /> → <StateBadge label={backendLabel({ state: c.to, checked: true })} />
                {c.error && <span className="muted"> {c.error}</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

/** The backend picked in the table: where it points, how it is doing and who uses it. */
function BackendDetail({ backend: b, now, onClose }: { backend: BackendView; now: number; onClose: () => void }) {
  return (
    <DetailCard title={b.name} onClose={onClose} testId="backend-detail">
      <dl className="facts">
        <dt>Origin</dt>
        <dd className="wrap-anywhere">
          <code>{b.origin ?? '(url per request)'}</code>
        </dd>
        <dt>State</dt>
        <dd>
          <StateBadge label={backendLabel(b.health)} />
          {b.health.checked && <span className="muted"> · checked {agoText(b.health.lastCheckAt, now)}</span>}
        </dd>
        {b.health.error && (
          <>
            <dt>Last error</dt>
            <dd className="wrap-anywhere">{b.health.error}</dd>
          </>
        )}
        <dt>Failures</dt>
        <dd>{b.health.failures} in a row</dd>
        <dt>Used by</dt>
        <dd>{b.usedBy.length > 0 ? <UsedBy paths={b.usedBy} /> : 'no endpoint'}</dd>
        <dt>While unhealthy</dt>
        <dd>{b.useWhenUnhealthy ? 'still sent requests (use_when_unhealthy)' : 'not sent requests'}</dd>
      </dl>
    </DetailCard>
  );
}

/** The endpoint paths routed to a backend, comma-separated (in the table one a line), each wrapping between its parts. */
function UsedBy({ paths, lines = false }: { paths: readonly string[]; lines?: boolean }) {
  return (
    <>
      {paths.map((p, i) => (
        <Fragment key={p}>
          {i > 0 && (lines ? <br /> : ', ')}
          <UrlText url={p} />
        </Fragment>
      ))}
    </>
  );
}

export const view: ViewDefinition = { path: '/backends', title: 'Backends', order: 25, Component: BackendsView };
