import type { ClusterSnapshot, SnapshotResource } from './snapshot.js';
import { encodeDeltaBody } from './wire.js';

/**
 * What changed from one snapshot to the next (or from nothing, `from` null): the clusters that
 * are new or have a new resource version, and the names that are gone. Every delta stream in
 * sync with `from` gets exactly this, so it is computed, and encoded, once per pair.
 */
export class SnapshotDiff {
  readonly changed: readonly SnapshotResource[];
  readonly removed: readonly string[];
  #body: Uint8Array | null = null;

  // Only `to` is kept: holding `from` would keep an old snapshot alive.
  constructor(from: ClusterSnapshot | null, readonly to: ClusterSnapshot) {
    const changed: SnapshotResource[] = [];
    const removed: string[] = [];
    for (const r of to.resources) if (from?.byName.get(r.name)?.version !== r.version) changed.push(r);
    if (from) for (const r of from.resources) if (!to.byName.has(r.name)) removed.push(r.name);
    // Both lists follow the snapshots' name order.
    this.changed = changed;
    this.removed = removed;
  }

  get empty(): boolean {
    return this.changed.length === 0 && this.removed.length === 0;
  }

  /** The DeltaDiscoveryResponse without its nonce, encoded on first use and shared by every stream. */
  body(): Uint8Array {
    this.#body ??= encodeDeltaBody(this.to.version, this.changed, this.removed);
    return this.#body;
  }
}

/** Keeps the diffs into the current snapshot (one per distinct `from` version seen); older targets are dropped. */
export class SnapshotDiffCache {
  #to: ClusterSnapshot | null = null;
  readonly #byFrom = new Map<string, SnapshotDiff>();

  get(from: ClusterSnapshot | null, to: ClusterSnapshot): SnapshotDiff {
    if (this.#to !== to) {
      this.#to = to;
      this.#byFrom.clear();
    }
    const key = from ? from.version : '';
    let diff = this.#byFrom.get(key);
    if (!diff) {
      diff = new SnapshotDiff(from, to);
      this.#byFrom.set(key, diff);
    }
    return diff;
  }
}
