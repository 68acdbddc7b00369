import { EventEmitter, on } from 'node:events';

/**
 * Items with ids `<instance>:<seq>` for a tracked subscription: keeps the last `capacity`
 * so a console that reconnects with its last id gets what it missed (an id of another
 * daemon process, or one that fell out of the buffer, replays everything buffered).
 */
export class UpdateFeed<T extends { id: string }> {
  readonly #emitter = new EventEmitter();
  readonly #buffer: T[] = [];

  constructor(private readonly capacity: number) {
    this.#emitter.setMaxListeners(0);
  }

  push(item: T): void {
    this.#buffer.push(item);
    if (this.#buffer.length > this.capacity) this.#buffer.shift();
    this.#emitter.emit('item', item);
  }

  since(lastId: string | null | undefined): T[] {
    if (!lastId) return [];
    const last = parseId(lastId);
    const newest = this.#buffer.at(-1);
    if (!last || !newest || parseId(newest.id)?.instance !== last.instance) return [...this.#buffer];
    const oldest = parseId(this.#buffer[0]!.id)!;
    if (oldest.seq > last.seq + 1) return [...this.#buffer];
    return this.#buffer.filter((item) => parseId(item.id)!.seq > last.seq);
  }

  /** Buffered items after `lastId`, then live ones until `signal` aborts. */
  async *stream(lastId: string | null | undefined, signal: AbortSignal | undefined): AsyncGenerator<T> {
    // Listen before reading the buffer so nothing pushed in between is lost.
    const live = on(this.#emitter, 'item', signal ? { signal } : {});
    const seen = new Set<string>();
    for (const item of this.since(lastId)) {
      seen.add(item.id);
      yield item;
    }
    try {
      for await (const [item] of live) {
        const next = item as T;
        if (seen.delete(next.id)) continue;
        yield next;
      }
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
  }
}

function parseId(id: string): { instance: string; seq: number } | null {
  const at = id.lastIndexOf(':');
  const seq = Number(id.slice(at + 1));
  if (at < 0 || !Number.isInteger(seq)) return null;
  return { instance: id.slice(0, at), seq };
}
