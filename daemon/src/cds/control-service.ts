import type { ClusterCatalog } from './catalog.js';
import type { ClientRegistry } from './client-registry.js';
import type { CdsClientView, ClustersChange, ClustersList, ClusterView } from './control-types.js';
import type { SnapshotResource } from './snapshot.js';

/** What the control API reaches for the cluster discovery service (set by the area). */
export interface ClustersControl {
  list(): ClustersList;
  clients(): CdsClientView[];
  /** A first tick, then snapshot and client changes until `signal` aborts; bursts (a thousand ACKs) fold into one. */
  changes(signal: AbortSignal | undefined): AsyncGenerator<ClustersChange>;
}

export interface ClustersControlDeps {
  catalog: ClusterCatalog;
  registry: ClientRegistry;
  source: () => string;
  address: () => string | null;
}

export function clustersControl({ catalog, registry, source, address }: ClustersControlDeps): ClustersControl {
  return {
    list: () => {
      const snapshot = catalog.current;
      return { version: snapshot.version, updatedAt: snapshot.createdAt, source: source(), address: address(), clusters: snapshot.resources.map(clusterView), skipped: [...snapshot.skipped] };
    },
    clients: () => registry.list().sort((a, b) => a.connectedAt.localeCompare(b.connectedAt) || a.streamId.localeCompare(b.streamId)),
    changes: (signal) => changeStream(catalog, registry, signal),
  };
}

function clusterView(r: SnapshotResource): ClusterView {
  const s = r.summary;
  return {
    name: s.name,
    type: s.type,
    origin: s.origin,
    endpoints: [{ address: s.address, port: s.port, healthStatus: s.healthStatus }],
    healthStatus: s.healthStatus,
    healthChecked: s.healthChecked,
    tls: s.tls,
    http2: s.http2,
    anonymous: s.anonymous,
    connectTimeoutMs: s.connectTimeoutMs,
    maxConnections: s.maxConnections,
    version: r.version,
  };
}

async function* changeStream(catalog: ClusterCatalog, registry: ClientRegistry, signal: AbortSignal | undefined): AsyncGenerator<ClustersChange> {
  // The first tick is immediate: a subscriber knows it is live and reads the lists once.
  let pending: ClustersChange['kind'] | null = 'snapshot';
  let wake: (() => void) | null = null;
  const mark = (kind: ClustersChange['kind']): void => {
    pending = pending === 'snapshot' ? 'snapshot' : kind;
    wake?.();
  };
  const offSnapshot = catalog.onChange(() => mark('snapshot'));
  const offClients = registry.onChange(() => mark('clients'));
  const aborted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
  try {
    while (!signal?.aborted) {
      if (pending === null) {
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
        wake = null;
        continue;
      }
      const kind: ClustersChange['kind'] = pending;
      pending = null;
      yield { kind, version: catalog.current.version, clients: registry.size, at: new Date().toISOString() };
    }
  } finally {
    offSnapshot();
    offClients();
  }
}
