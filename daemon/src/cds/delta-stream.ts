import type { ClusterCatalog } from './catalog.js';
import type { ClientRecord, ClientRegistry } from './client-registry.js';
import { bounded, checkTypeUrl, MAX_NACK_MESSAGE_CHARS, MAX_NODE_CHARS, type DeltaDiscoveryRequestMessage, nextNonce } from './messages.js';
import type { ResponseSink } from './sotw-stream.js';
import { HeldVersions } from './held-versions.js';
import type { ClusterSnapshot, SnapshotResource } from './snapshot.js';
import { encodeDeltaResponse, withNonce } from './wire.js';

/**
 * One DeltaClusters stream (incremental xDS, current protocol text):
 * - wildcard: `*` subscribed, or (legacy) empty subscribe and unsubscribe on the first request;
 * - the first request's initial_resource_versions say what the client holds, so unchanged
 *   clusters are not resent after a reconnect;
 * - every later `resource_names_subscribe` name is resent even if the client seems current;
 * - a subscribed name that does not exist is listed in removed_resources (once), and pushed
 *   when it appears; a cluster the client holds that disappears is listed there too;
 * - per-resource versions are content hashes; responses carry only what changed;
 * - subscription changes are honoured even with a stale nonce; ACK/NACK only with the last nonce;
 *   a NACK is recorded and the rejected resource versions are not resent.
 */
export class DeltaStream {
  #started = false;
  #wildcard = false;
  readonly #names = new Set<string>();
  /** What the client holds: a shared snapshot plus the names where it differs. */
  readonly #held = new HeldVersions();
  #lastNonce: string | null = null;
  #blocked = false;
  #pending = false;

  constructor(
    private readonly catalog: ClusterCatalog,
    private readonly registry: ClientRegistry,
    readonly record: ClientRecord,
    private readonly sink: ResponseSink,
    /** False when the server's send budget is spent; the stream is then owed a push (onSnapshot later). */
    private readonly gate: () => boolean = () => true,
  ) {}

  handle(request: DeltaDiscoveryRequestMessage): void {
    checkTypeUrl(request.type_url);
    const first = !this.#started;
    if (first) {
      this.record.nodeId = bounded(request.node?.id ?? '', MAX_NODE_CHARS);
      this.record.nodeCluster = bounded(request.node?.cluster ?? '', MAX_NODE_CHARS);
      for (const [name, version] of Object.entries(request.initial_resource_versions)) this.#held.set(name, version);
      if (request.resource_names_subscribe.length === 0 && request.resource_names_unsubscribe.length === 0) this.#wildcard = true;
    }
    const nonce = request.response_nonce;
    if (nonce !== '' && nonce === this.#lastNonce) {
      const at = new Date().toISOString();
      const version = this.record.lastVersionSent ?? '';
      if (request.error_detail) this.record.lastNack = { version, at, code: request.error_detail.code, message: bounded(request.error_detail.message, MAX_NACK_MESSAGE_CHARS) };
      else this.record.lastAck = { version, at };
    }
    for (const name of request.resource_names_subscribe) {
      if (name === '*') this.#wildcard = true;
      else {
        this.#names.add(name);
        if (!first) this.#held.delete(name);
      }
    }
    for (const name of request.resource_names_unsubscribe) {
      if (name === '*') this.#wildcard = false;
      else {
        this.#names.delete(name);
        this.#held.delete(name); // still wildcard: resent below, as the client dropped it
      }
    }
    this.#started = true;
    this.record.subscriptions = { wildcard: this.#wildcard, names: [...this.#names].sort() };
    this.#push(this.catalog.current);
    this.registry.changed(this.record);
  }

  onSnapshot(snapshot: ClusterSnapshot): void {
    if (!this.#started) return;
    if (this.#blocked) {
      this.#pending = true;
      return;
    }
    this.#push(snapshot);
  }

  drained(): void {
    this.#blocked = false;
    if (this.#pending) {
      this.#pending = false;
      this.onSnapshot(this.catalog.current);
    }
  }

  #push(snapshot: ClusterSnapshot): void {
    if (!this.gate()) return; // owed: the diff is computed when its turn comes
    if (this.#wildcard) this.#pushWildcard(snapshot);
    else this.#pushNamed(snapshot);
  }

  /**
   * Wildcard: the shared diff from the snapshot the client holds to this one, adjusted for the
   * few names where this client differs (or that it named). Afterwards the client holds this
   * snapshot in full, so its state is again a reference plus the names it asked for that do not exist.
   */
  #pushWildcard(snapshot: ClusterSnapshot): void {
    const diff = this.catalog.deltaDiff(this.#held.base, snapshot);
    const own = new Set<string>(this.#held.differing());
    for (const name of this.#names) own.add(name);
    if (own.size === 0) {
      this.#held.rebase(snapshot, []);
      if (!diff.empty) this.#send(withNonce(diff.body(), this.#nextNonce(snapshot)));
      return;
    }
    const changed: SnapshotResource[] = diff.changed.filter((r) => !own.has(r.name));
    const removed: string[] = diff.removed.filter((name) => !own.has(name));
    for (const name of own) this.#compare(snapshot, name, changed, removed);
    this.#held.rebase(snapshot, this.#names);
    this.#sendChanges(snapshot, changed, removed);
  }

  #pushNamed(snapshot: ClusterSnapshot): void {
    const changed: SnapshotResource[] = [];
    const removed: string[] = [];
    for (const name of this.#names) this.#compare(snapshot, name, changed, removed);
    for (const r of changed) this.#held.set(r.name, r.version);
    for (const name of removed) this.#held.set(name, null);
    this.#sendChanges(snapshot, changed, removed);
  }

  /** One name against what the client holds: send it when its version differs, say removed once when it is gone. */
  #compare(snapshot: ClusterSnapshot, name: string, changed: SnapshotResource[], removed: string[]): void {
    const resource = snapshot.byName.get(name);
    const held = this.#held.get(name);
    if (resource) {
      if (held !== resource.version) changed.push(resource);
    } else if (held !== null && (held !== undefined || this.#names.has(name))) {
      removed.push(name);
    }
  }

  #sendChanges(snapshot: ClusterSnapshot, changed: SnapshotResource[], removed: string[]): void {
    if (changed.length === 0 && removed.length === 0) return;
    changed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    removed.sort();
    this.#send(encodeDeltaResponse(snapshot.version, changed, removed, this.#nextNonce(snapshot)));
  }

  #nextNonce(snapshot: ClusterSnapshot): string {
    const nonce = nextNonce();
    this.#lastNonce = nonce;
    this.record.lastVersionSent = snapshot.version;
    this.record.lastNonce = nonce;
    return nonce;
  }

  #send(bytes: Buffer): void {
    if (!this.sink(bytes)) this.#blocked = true;
    this.registry.changed(this.record);
  }
}
