import type { ClusterCatalog } from './catalog.js';
import { checkTypeUrl, type DiscoveryRequestMessage } from './messages.js';
import type { SnapshotResource } from './snapshot.js';
import { encodeSotwBody } from './wire.js';

export interface FetchResult {
  /** The encoded DiscoveryResponse (no nonce: there is no stream to ACK on). */
  readonly bytes: Buffer;
  readonly version: string;
  /** True when the client's version_info is the current version and every name it asks for exists. */
  readonly current: boolean;
}

/**
 * FetchClusters: the current clusters (all of them for an empty list or `*`, else the named
 * ones that exist). The gRPC method always answers with them; the HTTP form turns `current`
 * into 304 Not Modified, as Envoy's REST fetcher expects.
 */
export function fetchClusters(catalog: ClusterCatalog, request: DiscoveryRequestMessage): FetchResult {
  checkTypeUrl(request.type_url);
  const snapshot = catalog.current;
  const names = request.resource_names;
  const all = names.length === 0 || names.includes('*');
  const resources: SnapshotResource[] = all ? [...snapshot.resources] : [...new Set(names)].sort().flatMap((n) => snapshot.byName.get(n) ?? []);
  const covered = all || names.every((n) => snapshot.byName.has(n));
  const bytes = all ? catalog.wildcardBody() : encodeSotwBody(snapshot.version, resources);
  return { bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), version: snapshot.version, current: covered && request.version_info !== '' && request.version_info === snapshot.version };
}
