import type { BackendHealth } from '../gateway/contracts.js';
import type { GatewayConfig } from '../gateway/config/model.js';
import type { ClusterInput } from './cluster-mapping.js';
import type { CdsTypes } from './proto-root.js';
import { buildSnapshot, ClusterEncodings, type ClusterSnapshot, emptySnapshot, type SnapshotResource } from './snapshot.js';
import { SnapshotDiff, SnapshotDiffCache } from './snapshot-diff.js';
import { encodeSotwBody } from './wire.js';

export type SnapshotListener = (next: ClusterSnapshot, previous: ClusterSnapshot) => void;

/**
 * The current cluster snapshot. `update` rebuilds from backends and health and publishes only
 * when the content (hence the version) changed, so an unchanged reload pushes nothing.
 */
export class ClusterCatalog {
  #current: ClusterSnapshot = emptySnapshot();
  /** Encoded SotW bodies of the current snapshot by subscription ('*' or the sorted names). */
  readonly #sotwBodies = new Map<string, Uint8Array>();
  #sotwBodiesVersion = '';
  readonly #diffs = new SnapshotDiffCache();
  readonly #listeners = new Set<SnapshotListener>();
  readonly #encodings = new ClusterEncodings();

  constructor(readonly types: CdsTypes) {}

  get current(): ClusterSnapshot {
    return this.#current;
  }

  /** Returns true when a new version was published. */
  update(inputs: readonly ClusterInput[]): boolean {
    const next = buildSnapshot(this.types, inputs, new Date(), this.#encodings);
    if (next.version === this.#current.version) return false;
    const previous = this.#current;
    this.#current = next;
    for (const listener of [...this.#listeners]) listener(next, previous);
    return true;
  }

  /** Builds the inputs of a config and a health reading (null: every backend `unknown`). */
  updateFrom(config: GatewayConfig | null, health: Readonly<Record<string, BackendHealth>> | null): boolean {
    return this.update(config ? clusterInputs(config, health) : []);
  }

  onChange(listener: SnapshotListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The encoded full-state response body (no nonce) of the current snapshot, built once per version. */
  wildcardBody(): Uint8Array {
    return this.sotwBody(this.#current, null);
  }

  /**
   * The SotW response body (no nonce) of `snapshot` for a subscription: every cluster (`names`
   * null) or the named ones that exist. Built once per (version, subscription) and shared by
   * every stream with that subscription; only bodies of the current snapshot are kept.
   */
  sotwBody(snapshot: ClusterSnapshot, names: readonly string[] | null): Uint8Array {
    const encode = (): Uint8Array => encodeSotwBody(snapshot.version, names ? subset(snapshot, names) : snapshot.resources);
    if (snapshot !== this.#current) return encode();
    if (this.#sotwBodiesVersion !== snapshot.version) {
      this.#sotwBodies.clear();
      this.#sotwBodiesVersion = snapshot.version;
    }
    const key = names ? JSON.stringify(names) : '*';
    let body = this.#sotwBodies.get(key);
    if (!body) {
      // Named subscriptions are as many as clients in the worst case: keep the cache bounded.
      if (this.#sotwBodies.size >= MAX_CACHED_BODIES) this.#sotwBodies.clear();
      body = encode();
      this.#sotwBodies.set(key, body);
    }
    return body;
  }

  /** What changed from `from` (what a delta client holds; null: nothing) to `to`, shared by every stream in sync with `from`. */
  deltaDiff(from: ClusterSnapshot | null, to: ClusterSnapshot): SnapshotDiff {
    return to === this.#current ? this.#diffs.get(from, to) : new SnapshotDiff(from, to);
  }
}

const MAX_CACHED_BODIES = 256;

/** The named clusters that exist in `snapshot`, in name order (`names` sorted). */
function subset(snapshot: ClusterSnapshot, names: readonly string[]): SnapshotResource[] {
  const out: SnapshotResource[] = [];
  for (const name of names) {
    const resource = snapshot.byName.get(name);
    if (resource) out.push(resource);
  }
  return out;
}

export function clusterInputs(config: GatewayConfig, health: Readonly<Record<string, BackendHealth>> | null): ClusterInput[] {
  return Object.values(config.backends).map((backend) => ({
    backend,
    health: health?.[backend.name]?.state ?? 'unknown',
    defaultCaFile: config.settings.caFile,
  }));
}
