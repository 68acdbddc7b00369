import type { CdsClientView, CdsStreamKind } from './control-types.js';

/** The mutable record of one open stream; its handler updates it and calls `changed()`. */
export interface ClientRecord extends CdsClientView {}

export type ClientListener = (client: CdsClientView, event: 'connected' | 'updated' | 'disconnected') => void;

/** Open streams by id; per-node state lives only while its stream is open. */
export class ClientRegistry {
  readonly #clients = new Map<string, ClientRecord>();
  readonly #listeners = new Set<ClientListener>();
  #seq = 0;

  open(kind: CdsStreamKind, peer: string): ClientRecord {
    this.#seq += 1;
    const record: ClientRecord = {
      streamId: `${kind}-${this.#seq}`,
      nodeId: '',
      nodeCluster: '',
      kind,
      peer,
      connectedAt: new Date().toISOString(),
      subscriptions: { wildcard: false, names: [] },
      lastVersionSent: null,
      lastNonce: null,
      lastAck: null,
      lastNack: null,
    };
    this.#clients.set(record.streamId, record);
    this.#emit(record, 'connected');
    return record;
  }

  changed(record: ClientRecord): void {
    if (this.#clients.has(record.streamId)) this.#emit(record, 'updated');
  }

  close(record: ClientRecord): void {
    if (this.#clients.delete(record.streamId)) this.#emit(record, 'disconnected');
  }

  get size(): number {
    return this.#clients.size;
  }

  list(): CdsClientView[] {
    return [...this.#clients.values()].map(copy);
  }

  onChange(listener: ClientListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(record: ClientRecord, event: 'connected' | 'updated' | 'disconnected'): void {
    if (this.#listeners.size === 0) return;
    const view = copy(record);
    for (const listener of [...this.#listeners]) listener(view, event);
  }
}

function copy(r: ClientRecord): CdsClientView {
  return {
    ...r,
    subscriptions: { wildcard: r.subscriptions.wildcard, names: [...r.subscriptions.names] },
    lastAck: r.lastAck ? { ...r.lastAck } : null,
    lastNack: r.lastNack ? { ...r.lastNack } : null,
  };
}
