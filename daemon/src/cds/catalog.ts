import type { BackendHealth } from '../gateway/contracts.js';
import type { GatewayConfig } from '../gateway/config/model.js';
import type { ClusterInput } from './cluster-mapping.js';
import type { CdsTypes } from './proto-root.js';
import { buildSnapshot, type ClusterSnapshot, emptySnapshot } from './snapshot.js';
import { encodeSotwBody } from './wire.js';

export type SnapshotListener = (next: ClusterSnapshot, previous: ClusterSnapshot) => void;

/**
 * The current cluster snapshot. `update` rebuilds from backends and health and publishes only
 * when the content (hence the version) changed, so an unchanged reload pushes nothing.
 */
export class ClusterCatalog {
  #current: ClusterSnapshot = emptySnapshot();
  #wildcardBody: { version: string; bytes: Uint8Array } | null = null;
  readonly #listeners = new Set<SnapshotListener>();

  constructor(readonly types: CdsTypes) {}

  get current(): ClusterSnapshot {
    return this.#current;
  }

  /** Returns true when a new version was published. */
  update(inputs: readonly ClusterInput[]): boolean {
    const next = buildSnapshot(this.types, inputs);
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
    const snapshot = this.#current;
    if (this.#wildcardBody?.version !== snapshot.version) this.#wildcardBody = { version: snapshot.version, bytes: encodeSotwBody(snapshot.version, snapshot.resources) };
    return this.#wildcardBody.bytes;
  }
}

export function clusterInputs(config: GatewayConfig, health: Readonly<Record<string, BackendHealth>> | null): ClusterInput[] {
  return Object.values(config.backends).map((backend) => ({
    backend,
    health: health?.[backend.name]?.state ?? 'unknown',
    defaultCaFile: config.settings.caFile,
  }));
}
