import { createHash } from 'node:crypto';
import protobuf from 'protobufjs';
import { type ClusterInput, clusterKey, type ClusterSummary, mapCluster } from './cluster-mapping.js';
import { CLUSTER_TYPE_URL, type CdsTypes } from './proto-root.js';
import { builtBackend } from '../gateway/config/backend-reuse.js';

/** One cluster of a snapshot, encoded once and shared by every stream. */
export interface SnapshotResource {
  readonly name: string;
  /** Content hash of the encoded Cluster: the per-resource version of delta streams. */
  readonly version: string;
  readonly summary: ClusterSummary;
  /** The encoded google.protobuf.Any wrapping the Cluster. */
  readonly any: Uint8Array;
}

/** An immutable set of clusters at one version; the version is a hash of the content. */
export interface ClusterSnapshot {
  readonly version: string;
  /** Sorted by name. */
  readonly resources: readonly SnapshotResource[];
  readonly byName: ReadonlyMap<string, SnapshotResource>;
  /** ISO time this content first appeared. */
  readonly createdAt: string;
  /** Backends left out (url-only backends have no origin). */
  readonly skipped: readonly string[];
}

/**
 * The clusters of the last build, encoded, by `clusterKey` of their input: a reload that
 * changes one backend of 10,000 maps, encodes and hashes one cluster, not 10,000. Holds only
 * what the last build used, so it stays the size of the current snapshot. Null: a backend
 * without a cluster (url-only).
 */
export class ClusterEncodings {
  #last = new Map<string, SnapshotResource | null>();
  #next = new Map<string, SnapshotResource | null>();
  /**
   * The key and the cluster of a frozen backend object, with the input they were made with: a
   * reload that took the backend unchanged from the previous load (ReusableBackends) hands over
   * the same object (or a copy of it at a moved block: `builtBackend` gives the object), and
   * neither its key is written again nor its encoding looked up by that key.
   */
  #known = new WeakMap<ClusterInput['backend'], { readonly health: ClusterInput['health']; readonly defaultCaFile: string | null; readonly key: string; readonly resource: SnapshotResource | null }>();

  /** The cluster of `input`, encoded: the same resource object as long as its content is the same. */
  encode(types: CdsTypes, input: ClusterInput): SnapshotResource | null {
    const { health, defaultCaFile } = input;
    // A backend taken at a moved block is a copy that differs only in its range, which no cluster reads.
    const backend = builtBackend(input.backend);
    const known = this.#known.get(backend);
    if (known !== undefined && known.health === health && known.defaultCaFile === defaultCaFile) {
      this.#next.set(known.key, known.resource);
      return known.resource;
    }
    const key = clusterKey(input);
    let resource = this.#last.get(key);
    if (resource === undefined) {
      const mapped = mapCluster(types, input);
      if (mapped) {
        const cluster = types.Cluster.encode(types.Cluster.fromObject(mapped.proto)).finish();
        resource = { name: mapped.summary.name, version: hash(cluster).slice(0, 16), summary: mapped.summary, any: encodeAny(CLUSTER_TYPE_URL, cluster) };
      } else {
        resource = null;
      }
    }
    this.#next.set(key, resource);
    if (Object.isFrozen(backend)) this.#known.set(backend, { health, defaultCaFile, key, resource });
    return resource;
  }

  /** Ends a build: what it did not use is forgotten. */
  settle(): void {
    this.#last = this.#next;
    this.#next = new Map();
  }
}

/** Builds the snapshot of a set of backends; the same content always gives the same version. */
export function buildSnapshot(types: CdsTypes, inputs: readonly ClusterInput[], now: Date = new Date(), encodings: ClusterEncodings = new ClusterEncodings()): ClusterSnapshot {
  const resources: SnapshotResource[] = [];
  const skipped: string[] = [];
  for (const input of inputs) {
    const resource = encodings.encode(types, input);
    if (resource) resources.push(resource);
    else skipped.push(input.backend.name);
  }
  encodings.settle();
  resources.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // One update of the whole text: 10,000 small updates cost more than the hashing itself.
  const lines: string[] = [];
  const byName = new Map<string, SnapshotResource>();
  for (const r of resources) {
    lines.push(`${r.name}\0${r.version}\n`);
    byName.set(r.name, r);
  }
  return {
    version: createHash('sha256').update(lines.join('')).digest('hex').slice(0, 16),
    resources,
    byName,
    createdAt: now.toISOString(),
    skipped: skipped.sort(),
  };
}

export function emptySnapshot(): ClusterSnapshot {
  return { version: createHash('sha256').digest('hex').slice(0, 16), resources: [], byName: new Map(), createdAt: new Date().toISOString(), skipped: [] };
}

/** google.protobuf.Any { type_url = 1; value = 2 } written directly: the cluster bytes are already encoded. */
export function encodeAny(typeUrl: string, value: Uint8Array): Uint8Array {
  return protobuf.Writer.create().uint32((1 << 3) | 2).string(typeUrl).uint32((2 << 3) | 2).bytes(value).finish();
}

function hash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
