import { EventEmitter, on } from 'node:events';
import type { DaemonEvent, DaemonEventType, EventDetails, EventOrigin } from './client-types.js';

export interface PublishInput {
  type: DaemonEventType;
  level?: DaemonEvent['level'];
  message: string;
  component?: DaemonEvent['component'];
  /** Ids, attempt, target, error text: what an operator needs to act on a warning. */
  details?: EventDetails;
}

/** An event another daemon process published, as it arrives through the database. */
export interface RelayedInput {
  type: DaemonEventType;
  at: string;
  level: DaemonEvent['level'];
  message: string;
  details?: EventDetails;
  origin: EventOrigin;
}

/**
 * Daemon-wide event stream feeding `system.events`. Keeps the last `capacity` events so a
 * console that reconnects with its last event id gets what it missed.
 */
export class EventBus {
  readonly #emitter = new EventEmitter();
  readonly #buffer: DaemonEvent[] = [];
  #seq = 0;

  constructor(
    readonly bootId: string,
    private readonly capacity = 500,
  ) {
    this.#emitter.setMaxListeners(0);
  }

  /** The id of the newest event published so far (`<bootId>:0` before the first). */
  get lastId(): string {
    return `${this.bootId}:${this.#seq}`;
  }

  publish(input: PublishInput): DaemonEvent {
    const event = this.#append({
      type: input.type,
      at: new Date().toISOString(),
      level: input.level ?? 'info',
      message: input.message,
      ...(input.component ? { component: input.component } : {}),
      ...(input.details && Object.keys(input.details).length > 0 ? { details: input.details } : {}),
    });
    this.#emitter.emit('local', event);
    return event;
  }

  /**
   * Adds an event another process published: it gets an id of this bus (so resuming works as
   * for any other event) and keeps its time and origin; `onLocal` listeners do not see it.
   */
  relay(input: RelayedInput): DaemonEvent {
    return this.#append({
      type: input.type,
      at: input.at,
      level: input.level,
      message: input.message,
      ...(input.details && Object.keys(input.details).length > 0 ? { details: input.details } : {}),
      origin: input.origin,
    });
  }

  /** Calls `listener` for each event published in this process (not relayed ones); returns the unsubscribe. */
  onLocal(listener: (event: DaemonEvent) => void): () => void {
    this.#emitter.on('local', listener);
    return () => this.#emitter.off('local', listener);
  }

  #append(fields: Omit<DaemonEvent, 'id'>): DaemonEvent {
    this.#seq += 1;
    const event: DaemonEvent = { id: `${this.bootId}:${this.#seq}`, ...fields };
    this.#buffer.push(event);
    if (this.#buffer.length > this.capacity) this.#buffer.shift();
    this.#emitter.emit('event', event);
    return event;
  }

  /**
   * Events after `lastEventId`. An id from another boot (the daemon restarted) or one that
   * fell out of the buffer replays everything still buffered.
   */
  since(lastEventId: string | null | undefined): DaemonEvent[] {
    if (!lastEventId) return [];
    const [boot, seqText] = lastEventId.split(':');
    const seq = Number(seqText);
    if (boot !== this.bootId || !Number.isInteger(seq)) return [...this.#buffer];
    return this.#buffer.filter((e) => Number(e.id.slice(this.bootId.length + 1)) > seq);
  }

  /** The newest `count` buffered events, oldest first. */
  latest(count: number): DaemonEvent[] {
    return count > 0 ? this.#buffer.slice(-count) : [];
  }

  /**
   * Buffered events after `lastEventId` (or, without one, the newest `backlog` events), then
   * live ones, until `signal` aborts.
   */
  async *stream(lastEventId: string | null | undefined, signal: AbortSignal | undefined, backlogCount = 0): AsyncGenerator<DaemonEvent> {
    // Subscribe before reading the backlog so nothing published in between is lost.
    const live = on(this.#emitter, 'event', signal ? { signal } : {});
    const backlog = lastEventId ? this.since(lastEventId) : this.latest(backlogCount);
    let lastSeq = backlog.length > 0 ? seqOf(backlog[backlog.length - 1]!.id) : seqOf(lastEventId, this.bootId);
    for (const event of backlog) yield event;
    try {
      for await (const [event] of live) {
        const e = event as DaemonEvent;
        if (seqOf(e.id) <= lastSeq) continue;
        lastSeq = seqOf(e.id);
        yield e;
      }
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
  }
}

function seqOf(id: string | null | undefined, bootId?: string): number {
  if (!id) return 0;
  const [boot, seq] = id.split(':');
  if (bootId !== undefined && boot !== bootId) return 0;
  const n = Number(seq);
  return Number.isInteger(n) ? n : 0;
}
