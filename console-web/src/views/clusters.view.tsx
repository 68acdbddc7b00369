import { useEffect } from 'react';
import { useControlQuery } from '../api/use-control-query';
import type { CdsClientView, ClustersList, ClusterView } from '@portico/daemon/control';
import { CLUSTERS_URL, filterClusters, HEALTH_STATUSES, subscribersOf } from '../clusters/cluster-filter';
import { ackLabel, endpointText, healthLabel, nackCodeText, streamKindText, subscriptionText } from '../clusters/cluster-labels';
import '../clusters/clusters.css';
import { useControlClient } from '../live/live-context';
import { LiveMark } from '../live/live-mark';
import { useUrlState } from '../router/use-url-state';
import { StateBadge } from '../ui/state-badge';
import { DetailCard } from '../ui/detail-card';
import { ListFilter } from '../ui/list-filter';
import { TimeText } from '../ui/time-text';
import { UrlText } from '../ui/url-text';
import type { ViewDefinition } from './view-definition';
import { plural } from '@portico/daemon/display';

interface Data {
  list: ClustersList;
  clients: CdsClientView[];
}

function ClustersView() {
  const client = useControlClient();
  const read = useControlQuery((c) => Promise.all([c.clusters.list.query(), c.clusters.clients.query()]).then(([list, clients]): Data => ({ list, clients })), []);
  const { data, error, refresh } = read;
  // The filter and the cluster looked at live in the address: reload, Back and links keep them.
  const [url, setUrl] = useUrlState(CLUSTERS_URL);

  // Every snapshot or client change (coalesced by the daemon) re-reads both lists.
  useEffect(() => {
    const subscription = client.clusters.changes.subscribe(undefined, {
      onStarted: () => refresh(),
      onData: () => refresh(),
      onError: () => refresh(),
    });
    return () => subscription.unsubscribe();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client]);

  if (!data) return <div className="stack">{error ? <p className="error">{error}</p> : <p className="muted">Loading…</p>}</div>;
  const { list, clients } = data;
  const shown = filterClusters(list.clusters, url.q, url.health);
  const selected = url.cluster ? (list.clusters.find((c) => c.name === url.cluster) ?? null) : null;
  return (
    <div className="stack">
      <section className="card" aria-labelledby="clusters-heading">
        <div className="card-heading">
          <h2 id="clusters-heading">Published clusters</h2>
          <p className="muted summary">
            version <code data-testid="cds-version">{list.version}</code> since <TimeText iso={list.updatedAt} /> · gRPC <code>{list.address ?? '–'}</code> · from {list.source} · <LiveMark />
          </p>
        </div>
        <ListFilter search={url.q} searchHint="name or origin" onSearch={(q) => setUrl({ q }, 'typing')} choiceLabel="Health" choice={url.health} choices={HEALTH_STATUSES} onChoice={(health) => setUrl({ health })} onClear={() => setUrl({ q: '', health: '' })} />
        {error && <p className="error">{error}</p>}
        {url.cluster && !selected && <p className="muted">There is no cluster {url.cluster} in this snapshot.</p>}
        {list.clusters.length === 0 ? (
          <p className="muted">No cluster: the configuration has no backend with an origin.</p>
        ) : shown.length === 0 ? (
          <p className="muted">No cluster matches these filters.</p>
        ) : (
          <div className="table-scroll">
            <table className="table" data-testid="clusters">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Health</th>
                  <th scope="col">Options</th>
                  <th scope="col">Resource version</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((c) => (
                  <tr key={c.name} data-testid={`cluster-${c.name}`} data-health={c.healthStatus} className={selected?.name === c.name ? 'selected' : undefined} aria-selected={selected?.name === c.name}>
                    <th scope="row">
                      <button type="button" className="link-button" onClick={() => setUrl({ cluster: selected?.name === c.name ? '' : c.name })} aria-expanded={selected?.name === c.name}>
                        {c.name}
                      </button>
                      {c.anonymous && <span className="muted"> (inline)</span>}
                    </th>
                    <td>{c.type}</td>
                    <td className="cell-url">
                      <code>
                        <UrlText url={endpointText(c)} />
                      </code>
                    </td>
                    <td>
                      <StateBadge label={healthLabel(c.healthStatus)} />
                      {!c.healthChecked && <span className="muted"> not checked</span>}
                    </td>
                    <td className="muted">{[c.tls && 'TLS', c.http2 && 'HTTP/2', `connect ${c.connectTimeoutMs} ms`, c.maxConnections > 0 && `max ${c.maxConnections} conns`].filter(Boolean).join(' · ')}</td>
                    <td>
                      <code>{c.version}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {list.skipped.length > 0 && <p className="muted">Not published (url per request, no fixed origin): {list.skipped.join(', ')}</p>}
        {selected && <ClusterDetail cluster={selected} clients={subscribersOf(clients, selected.name)} onClose={() => setUrl({ cluster: '' })} />}
      </section>
      <section className="card" aria-labelledby="cds-clients-heading">
        <div className="card-heading">
          <h2 id="cds-clients-heading">Connected clients</h2>
          <p className="muted summary">{plural(clients.length, 'open stream')}</p>
        </div>
        {clients.length === 0 ? (
          <p className="muted">No proxy is connected.</p>
        ) : (
          <div className="table-scroll">
            <table className="table" data-testid="cds-clients">
              <thead>
                <tr>
                  <th scope="col">Node</th>
                  <th scope="col">Stream</th>
                  <th scope="col">Subscriptions</th>
                  <th scope="col">Last sent</th>
                  <th scope="col">State</th>
                  <th scope="col">Last ACK</th>
                  <th scope="col">Last NACK</th>
                </tr>
              </thead>
              <tbody>
                {clients.map((c) => {
                  const kind = streamKindText(c.kind);
                  return [
                    <tr key={c.streamId} data-testid={`cds-client-${c.nodeId || c.streamId}`}>
                      <th scope="row" className="cds-cell-line">
                        {c.nodeId || <span className="muted">(no id)</span>}
                        {c.nodeCluster && <span className="cds-sub">cluster {c.nodeCluster}</span>}
                        <span className="cds-sub">{c.peer}</span>
                        <span className="cds-sub">
                          since <TimeText iso={c.connectedAt} />
                        </span>
                      </th>
                      <td className="cds-cell-line">
                        <abbr title={kind.long}>{kind.short}</abbr>
                      </td>
                      <td>{subscriptionText(c)}</td>
                      <td className="cds-cell-line">
                        <code>{c.lastVersionSent ?? '–'}</code>
                        {c.lastNonce && <span className="cds-sub">nonce {c.lastNonce}</span>}
                      </td>
                      <td>
                        <StateBadge label={ackLabel(c, list.version)} />
                      </td>
                      <td className="cds-cell-line">
                        {c.lastAck ? (
                          <>
                            <code>{c.lastAck.version}</code>
                            <span className="cds-sub">
                              <TimeText iso={c.lastAck.at} />
                            </span>
                          </>
                        ) : (
                          '–'
                        )}
                      </td>
                      <td className={c.lastNack ? 'cds-nack cds-cell-line' : undefined} data-testid="cds-last-nack">
                        {c.lastNack ? (
                          <>
                            <code>{c.lastNack.version}</code>
                            <span className="cds-sub">
                              <TimeText iso={c.lastNack.at} />
                            </span>
                            <span className="cds-sub">code {nackCodeText(c.lastNack.code)}
                            </span>
                          </>
                        ) : (
                          '–'
                        )}
                      </td>
                    </tr>,
                    c.lastNack && (
                      <tr key={`${c.streamId}-nack`} className="cds-nack-row" data-testid={`cds-nack-${c.nodeId || c.streamId}`}>
                        <td colSpan={7}>
                          <div className="cds-nack-detail">
                            <span className="cds-nack-label">error detail of the NACK:</span> {c.lastNack.message || '(no message)'}
                          </div>
                        </td>
                      </tr>
                    ),
                  ];
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}

/** The cluster picked in the table: every endpoint, its options, and the proxies that receive it. */
function ClusterDetail({ cluster: c, clients, onClose }: { cluster: ClusterView; clients: CdsClientView[]; onClose: () => void }) {
  return (
    <DetailCard title={c.name} onClose={onClose} testId="cluster-detail">
      <dl className="facts">
        <dt>Origin</dt>
        <dd className="wrap-anywhere">
          <code>{c.origin}</code>
        </dd>
        <dt>Endpoints</dt>
        <dd>
          <code>{endpointText(c)}</code> · {c.type}
        </dd>
        <dt>Health</dt>
        <dd>
          <StateBadge label={healthLabel(c.healthStatus)} />
          {!c.healthChecked && <span className="muted"> not checked (no beta_health)</span>}
        </dd>
        <dt>Options</dt>
        <dd>{[c.tls ? 'TLS' : 'plain', c.http2 ? 'HTTP/2' : 'HTTP/1.1', `connect timeout ${c.connectTimeoutMs} ms`, c.maxConnections > 0 ? `max ${c.maxConnections} connections` : 'no connection limit'].join(' · ')}</dd>
        <dt>Resource version</dt>
        <dd>
          <code>{c.version}</code>
        </dd>
        <dt>Received by</dt>
        <dd>{clients.length === 0 ? 'no connected proxy' : clients.map((cl) => cl.nodeId || '(no id)').join(', ')}</dd>
      </dl>
    </DetailCard>
  );
}

export const view: ViewDefinition = { path: '/clusters', title: 'Clusters', order: 30, Component: ClustersView };
