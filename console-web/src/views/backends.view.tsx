import { useEffect, useState } from 'react';
import { agoText, applyUpdate, backendLabel, mergeRead, type BackendsData } from '../backends/backend-updates';
import { newestEventOf } from '../infosessions/session-table';
import { useControlClient, useLive } from '../live/live-context';
import { useNow } from '../live/use-now';
import { StateBadge } from '../ui/state-badge';
import { TimeText } from '../ui/time-text';
import type { ViewDefinition } from './view-definition';

function BackendsView() {
  const client = useControlClient();
  const { events } = useLive();
  const reloaded = newestEventOf(events, ['config.reloaded']);
  const now = useNow(1_000);
  const [data, setData] = useState<BackendsData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [resync, setResync] = useState(0);

  useEffect(() => {
    let cancelled = false;
    Promise.all([client.backends.list.query(), client.backends.timeline.query()]).then(
      ([backends, timeline]) => !cancelled && (setData((shown) => mergeRead(shown, { backends, timeline })), setError(null)),
      (e: unknown) => !cancelled && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      cancelled = true;
    };
  }, [client, reloaded, resync]);

  // Each finished check and state change as it happens; a (re)started subscription re-reads the list.
  useEffect(() => {
    const subscription = client.backends.changes.subscribe(undefined, {
      onStarted: () => setResync((n) => n + 1),
      onData: ({ data: update }) => setData((d) => (d ? applyUpdate(d, update) : d)),
      onError: (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    });
    return () => subscription.unsubscribe();
  }, [client]);

  if (!data) return <div className="stack">{error ? <p className="error">{error}</p> : <p className="muted">Loading…</p>}</div>;
  return (
    <div className="stack">
      <section className="card" aria-labelledby="backends-heading">
        <div className="card-heading">
          <h2 id="backends-heading">Backends</h2>
          <p className="muted summary">{data.backends.length} in the active configuration · live</p>
        </div>
        {error && <p className="error">{error}</p>}
        {data.backends.length === 0 ? (
          <p className="muted">The active configuration defines no backend.</p>
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
                {data.backends.map((b) => (
                  <tr key={b.name} data-testid={`backend-${b.name}`} data-state={b.health.checked ? b.health.state : 'unchecked'}>
                    <th scope="row">
                      {b.name}
                      {b.useWhenUnhealthy && <span className="muted"> (use_when_unhealthy)</span>}
                    </th>
                    <td title={b.health.error || undefined}>
                      <StateBadge label={backendLabel(b.health)} />
                      {b.health.error && <span className="muted"> {b.health.error}</span>}
                    </td>
                    <td>{b.health.checked ? agoText(b.health.lastCheckAt, now) : '–'}</td>
                    <td>{b.health.failures}</td>
                    <td>{b.health.latencyMs === null ? '–' : `${Math.round(b.health.latencyMs)} ms`}</td>
                    <td>
                      <code>{b.origin ?? '(url per request)'}</code>
                    </td>
                    <td>{b.usedBy.join(', ') || <span className="muted">no endpoint</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section className="card" aria-labelledby="timeline-heading">
        <div className="card-heading">
          <h2 id="timeline-heading">State changes</h2>
          <p className="muted summary">newest first</p>
        </div>
        {data.timeline.length === 0 ? (
          <p className="muted">No state change yet.</p>
        ) : (
          <ul className="events" data-testid="health-timeline">
            {data.timeline.map((c, i) => (
              <li key={`${c.at}-${c.backend}-${i}`}>
                <TimeText iso={c.at} /> <strong>{c.backend}</strong> {c.from} → <StateBadge label={backendLabel({ state: c.to, checked: true })} />
                {c.error && <span className="muted"> {c.error}</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

export const view: ViewDefinition = { path: '/backends', title: 'Backends', order: 25, Component: BackendsView };
