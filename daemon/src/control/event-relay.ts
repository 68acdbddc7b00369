import { z } from 'zod';
import type { Component } from '../core/component.js';
import type { Logger } from '../core/logger.js';
import { openNotificationChannel, type ListenState, type NotificationChannel } from '../store/notifications.js';
import type { Store } from '../store/types.js';
import { DAEMON_EVENT_TYPES, DAEMON_MODES, EVENT_LEVELS, type DaemonEvent, type DaemonEventType, type EventOrigin } from './client-types.js';
import type { EventBus } from './event-bus.js';

/** Types kept in their process: they describe its own components, which its status view shows. */
const LOCAL_ONLY: ReadonlySet<DaemonEventType> = new Set<DaemonEventType>(['component.state']);
const MAX_MESSAGE = 4000;

/** An event as it travels between processes; checked on arrival, since another Portico version may have sent it. */
const RelayedEvent = z.object({
  v: z.literal(1),
  origin: z.object({ bootId: z.string().min(1).max(100), mode: z.enum(DAEMON_MODES), pid: z.number().int(), host: z.string().max(255) }),
  type: z.enum(DAEMON_EVENT_TYPES),
  at: z.string().max(40),
  level: z.enum(EVENT_LEVELS),
  message: z.string().max(MAX_MESSAGE),
  details: z.record(z.string().max(100), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
});
type RelayedEvent = z.infer<typeof RelayedEvent>;

export interface EventRelayOptions {
  events: EventBus;
  /** The open store; read at start. */
  store: () => Store;
  /** This process, as the other processes' consoles will name it. */
  origin: EventOrigin;
  logger: Logger;
  /** SQLite: how often to look for other processes' events. */
  pollMs?: number;
  /** Events published within this window go to the database together. */
  batchMs?: number;
}

/**
 * Carries events between the daemon processes sharing a database, so a console connected to any
 * of them sees job, delivery, reload and warning events of all of them (split modes, several
 * daemons on one PostgreSQL). Each process publishes its own events and adds the others' to its
 * bus, tagged with their origin; its own never come back to it.
 */
export class EventRelay implements Component {
  readonly name = 'event-relay';
  readonly #options: EventRelayOptions;
  #channel: NotificationChannel | null = null;
  #off: () => void = () => {};
  #queue: string[] = [];
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;
  #failing = false;
  #reconnecting = false;
  #arrivalFailed = false;

  constructor(options: EventRelayOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    const { store, origin } = this.#options;
    this.#channel = await openNotificationChannel(store(), {
      channel: 'events',
      origin: origin.bootId,
      onMessage: (payload) => this.#arrived(payload),
      onMessageError: (error) => this.#arrivalError(error),
      onListenState: (state) => this.#listenState(state),
      ...(this.#options.pollMs !== undefined ? { pollMs: this.#options.pollMs } : {}),
    });
    this.#off = this.#options.events.onLocal((event) => this.#send(event));
  }

  describe(): string | null {
    return this.#channel?.describe() ?? null;
  }

  async stop(): Promise<void> {
    this.#off();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#flush();
    await this.#channel?.close();
    this.#channel = null;
  }

  #send(event: DaemonEvent): void {
    if (LOCAL_ONLY.has(event.type)) return;
    const message = event.message.length > MAX_MESSAGE ? `${event.message.slice(0, MAX_MESSAGE - 1)}…` : event.message;
    const relayed: RelayedEvent = { v: 1, origin: this.#options.origin, type: event.type, at: event.at, level: event.level, message, ...(event.details ? { details: event.details } : {}) };
    this.#queue.push(JSON.stringify(relayed));
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      void this.#flush();
    }, this.#options.batchMs ?? 50);
  }

  /** Writes what is queued in one publish; one at a time, so events keep their order. */
  async #flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    const channel = this.#channel;
    const batch = this.#queue.splice(0);
    if (!channel || batch.length === 0) return;
    this.#flushing = channel.publish(batch).then(
      () => {
        if (this.#failing) this.#options.logger.info('event relay: publishing to the other processes works again');
        this.#failing = false;
      },
      (error: unknown) => {
        // Once per outage: the warning is itself an event, and publishing it would fail again.
        if (!this.#failing) this.#options.logger.warn('event relay: could not pass events to the other processes; consoles of other processes miss them until the database answers', { error, dropped: batch.length });
        this.#failing = true;
      },
    );
    try {
      await this.#flushing;
    } finally {
      this.#flushing = null;
    }
  }

  #arrived(payload: string): void {
    let event: RelayedEvent;
    try {
      event = RelayedEvent.parse(JSON.parse(payload));
    } catch (error) {
      this.#options.logger.debug('event relay: ignored a message it cannot read (another Portico version?)', { error });
      return;
    }
    if (event.origin.bootId === this.#options.origin.bootId) return;
    this.#options.events.relay({ type: event.type, at: event.at, level: event.level, message: event.message, origin: event.origin, ...(event.details ? { details: event.details } : {}) });
  }

  /** Passing on another process's event threw (a subscriber of the bus): warned once, then at debug, as each warning is an event too. */
  #arrivalError(error: unknown): void {
    if (this.#arrivalFailed) {
      this.#options.logger.debug('event relay: could not pass on an event of another process', { error });
      return;
    }
    this.#arrivalFailed = true;
    this.#options.logger.warn('event relay: could not pass on an event of another process; it is dropped (later failures are logged at debug)', { error });
  }

  #listenState(state: ListenState): void {
    if (state.kind === 'reconnecting') {
      if (!this.#reconnecting) this.#options.logger.warn('event relay: cannot hear the other processes through the database (session lost or reads failing); retrying, and their events may be missed meanwhile', { error: state.error });
      this.#reconnecting = true;
    } else if (this.#reconnecting) {
      this.#reconnecting = false;
      this.#options.logger.info('event relay: listening again');
    }
  }
}
