import type { CdsClientView, CdsHealthStatus, ClusterView } from '@portico/daemon/control';

/** What the Clusters view keeps in the address: `/clusters?q=api&health=UNHEALTHY&cluster=api`. */
export const CLUSTERS_URL = { q: '', health: '', cluster: '' };

export const HEALTH_STATUSES: readonly CdsHealthStatus[] = ['HEALTHY', 'DEGRADED', 'UNHEALTHY', 'UNKNOWN'];

/** Clusters whose name or origin contains `text` (any case), with `health` when one is given. */
export function filterClusters(clusters: readonly ClusterView[], text: string, health: string): ClusterView[] {
  const wanted = text.trim().toLowerCase();
  return clusters.filter((c) => (health === '' || c.healthStatus === health) && (wanted === '' || c.name.toLowerCase().includes(wanted) || c.origin.toLowerCase().includes(wanted)));
}

/** The open streams that receive `cluster`: wildcard subscribers and those that named it. */
export function subscribersOf(clients: readonly CdsClientView[], cluster: string): CdsClientView[] {
  return clients.filter((c) => c.subscriptions.wildcard || c.subscriptions.names.includes(cluster));
}
