import type { ClusterCatalog } from './catalog.js';
import type { ClientRecord, ClientRegistry } from './client-registry.js';
import { bounded, checkTypeUrl, MAX_NACK_MESSAGE_CHARS, MAX_NODE_CHARS, type DiscoveryRequestMessage, nextNonce } from './messages.js';
import type { ClusterSnapshot } from './snapshot.js';
import { withNonce } from './wire.js';

/** Writes one encoded DiscoveryResponse; false when the transport's buffer is full. */
export type ResponseSink = (bytes: Buffer) => boolean;

/**
 * One StreamClusters stream (state of the world). Rules, from the xDS protocol as
 * go-control-plane applies them:
 * - node identity from the first request; a type_url other than Cluster's is refused;
 * - an empty resource_names on the first request is a (legacy) wildcard that lasts until
 *   the client names resources; `*` is an explicit wildcard; once names were sent, an empty
 *   list unsubscribes from everything;
 * - a request whose response_nonce is not the last nonce sent on this stream is stale and
 *   ignored entirely; an empty nonce is never stale;
 * - ACK = matching nonce without error_detail; NACK = with error_detail: recorded, and that
 *   version is never sent again on this stream;
 * - every response is the complete subscribed set (a missing cluster is a deletion), sent
 *   only when that set changed or newly requested names appear, never in answer to an ACK;
 * - a first request carrying the current version gets nothing until something changes.
 */
export class SotwStream {
  #started = false;
  #legacyWildcard = false;
  #everNamed = false;
  #wildcard = false;
  #names = new Set<string>();
  #lastNonce: string | null = null;
  /** What the client holds: the subscribed content key of the last response (or of its reconnect version). */
  #heldKey: string | null = null;
  #nackedVersion: string | null = null;
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

  handle(request: DiscoveryRequestMessage): void {
    checkTypeUrl(request.type_url);
    if (!this.#started) {
      this.record.nodeId = bounded(request.node?.id ?? '', MAX_NODE_CHARS);
      this.record.nodeCluster = bounded(request.node?.cluster ?? '', MAX_NODE_CHARS);
    }
    const nonce = request.response_nonce;
    if (nonce !== '' && this.#lastNonce !== null && nonce !== this.#lastNonce) return; // stale
    const at = new Date().toISOString();
    if (nonce !== '' && nonce === this.#lastNonce) {
      if (request.error_detail) {
        const rejected = this.record.lastVersionSent ?? '';
        this.record.lastNack = { version: rejected, at, code: request.error_detail.code, message: bounded(request.error_detail.message, MAX_NACK_MESSAGE_CHARS) };
        this.#nackedVersion = rejected;
      } else {
        this.record.lastAck = { version: request.version_info, at };
      }
    }
    const added = this.#subscribe(request.resource_names);
    const snapshot = this.catalog.current;
    if (!this.#started) {
      this.#started = true;
      if (request.version_info !== '' && request.version_info === snapshot.version) {
        this.#heldKey = this.#contentKey(snapshot); // reconnect: the client already holds this version
      } else {
        this.#respond(snapshot);
      }
    } else if (added) {
      this.#respond(snapshot);
    }
    this.registry.changed(this.record);
  }

  /** A new snapshot: push when this stream's subscribed content changed. */
  onSnapshot(snapshot: ClusterSnapshot): void {
    if (!this.#started || (!this.#wildcard && this.#names.size === 0)) return;
    if (this.#blocked) {
      this.#pending = true;
      return;
    }
    if (this.#contentKey(snapshot) !== this.#heldKey) this.#respond(snapshot);
  }

  /** The transport drained its buffer: send what was held back, if anything changed meanwhile. */
  drained(): void {
    this.#blocked = false;
    if (this.#pending) {
      this.#pending = false;
      this.onSnapshot(this.catalog.current);
    }
  }

  /** Applies resource_names; true when something not subscribed before is now requested. */
  #subscribe(requested: readonly string[]): boolean {
    const wasWildcard = this.#wildcard;
    const before = this.#names;
    if (!this.#started && requested.length === 0) this.#legacyWildcard = true;
    if (requested.length > 0) {
      this.#everNamed = true;
      this.#legacyWildcard = false;
    }
    const names = new Set(requested.filter((n) => n !== '*'));
    this.#wildcard = requested.includes('*') || (requested.length === 0 && this.#legacyWildcard && !this.#everNamed);
    this.#names = names;
    this.record.subscriptions = { wildcard: this.#wildcard, names: [...names].sort() };
    if (!this.#started) return true;
    if (this.#wildcard && !wasWildcard) return true;
    for (const n of names) if (!before.has(n) && !wasWildcard) return true;
    return false;
  }

  #respond(snapshot: ClusterSnapshot): void {
    if (snapshot.version === this.#nackedVersion) return;
    if (!this.gate()) return; // owed: onSnapshot sends the then-current state, as the held key differs
    const nonce = nextNonce();
    const body = this.catalog.sotwBody(snapshot, this.#wildcard ? null : [...this.#names].sort());
    this.#lastNonce = nonce;
    this.#heldKey = this.#contentKey(snapshot);
    this.record.lastVersionSent = snapshot.version;
    this.record.lastNonce = nonce;
    if (!this.sink(withNonce(body, nonce))) this.#blocked = true;
    this.registry.changed(this.record);
  }

  /** Wildcard: the snapshot version; named: each name with its resource version or absence. */
  #contentKey(snapshot: ClusterSnapshot): string {
    if (this.#wildcard) return `*${snapshot.version}`;
    return [...this.#names].sort().map((n) => `${n}=${snapshot.byName.get(n)?.version ?? '-'}`).join(',');
  }
}
