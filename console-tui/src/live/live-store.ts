import type { ComponentStatus, DaemonEvent, ReloadRecord, SystemStatus } from '@portico/daemon/control';
import { toControlProblem, type ControlProblem } from '../control/control-problem.js';
import type { ControlSource, LinkState } from '../control/control-source.js';

export type Connection = 'connecting' | 'connected' | 'disconnected' | 'refused';

export interface LiveState {
  connection: Connection;
  /** Why the link is down, when known. */
  problem: ControlProblem | null;
  status: SystemStatus;
  /** Local clock (ms) when `status` was last read, to advance its uptime between reads. */
  statusReadAt: number;
  /** Oldest first, at most `maxEvents`. */
  events: readonly DaemonEvent[];
  /** Local clock (ms) when the link dropped: what is on screen is as of then. Null while connected. */
  disconnectedAt: number | null;
  /** The last config reload when it did not apply (a rejected save), until a reload applies; null otherwise or without a gateway. */
  rejectedReload: ReloadRecord | null;
}

export interface LiveStoreOptions {
  maxEvents?: number;
  /** Re-read the full status this often while connected; events keep it current in between. */
  refreshMs?: number;
  /** Wait before subscribing again after the subscription failed for a reason other than the token. */
  resubscribeMs?: number;
  now?: () => number;
}

/**
 * What the console shows, kept current from the daemon: the status read at start, component
 * changes from `system.events`, a fresh read after every reconnect or daemon restart.
 */
export class LiveStore {
  readonly #source: ControlSource;
  readonly #listeners = new Set<() => void>();
  readonly #options: Required<LiveStoreOptions>;
  readonly #stops: Array<() => void> = [];
  #state: LiveState;
  #lastEventId: string | null;
  #wasOpen = false;
  /** Counts the link's drops: a read that was under way when the link dropped is not applied (the screen stays the snapshot of the moment it dropped). */
  #drops = 0;
  /** The drop count a status read is under way for, or null: one read per link at a time. */
  #refreshing: number | null = null;
  #configRead: Promise<void> | null = null;
  #configAgain = false;
  #stopped = false;

  constructor(source: ControlSource, initialStatus: SystemStatus, options: LiveStoreOptions = {}) {
    this.#source = source;
    this.#options = { maxEvents: 1000, refreshMs: 10_000, resubscribeMs: 2_000, now: Date.now, ...options };
    this.#state = { connection: 'connecting', problem: null, status: initialStatus, statusReadAt: this.#options.now(), events: [], disconnectedAt: null, rejectedReload: null };
    // `<boot>:0` asks for everything the daemon still buffers, so the events view starts with history.
    this.#lastEventId = `${initialStatus.bootId}:0`;
  }

  getState = (): LiveState => this.#state;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  start(): void {
    this.#stops.push(this.#source.watchLink((link) => this.#onLink(link)));
    this.#subscribeEvents();
    void this.refreshConfig();
    const timer = setInterval(() => {
      if (this.#state.connection === 'connected') void this.refresh();
    }, this.#options.refreshMs);
    timer.unref?.();
    this.#stops.push(() => clearInterval(timer));
  }

  stop(): void {
    this.#stopped = true;
    for (const stop of this.#stops.splice(0)) stop();
  }

  /** Re-reads system.status; a failure leaves the last good status on screen. */
  async refresh(): Promise<void> {
    const drops = this.#drops;
    if (this.#refreshing === drops || this.#stopped) return;
    this.#refreshing = drops;
    try {
      const status = await this.#source.fetchStatus(AbortSignal.timeout(5_000));
      if (!this.#stopped && drops === this.#drops) this.#set({ status, statusReadAt: this.#options.now() });
    } catch {
      // The link state already tells the operator; the next reconnect reads again.
    } finally {
      if (this.#refreshing === drops) this.#refreshing = null;
    }
  }

  /**
   * Re-reads `config.status` for a save that did not apply; calls while a read is under way fold
   * into one more read after it (a replayed backlog of reload events costs two reads, not ten).
   */
  refreshConfig(): Promise<void> {
    if (this.#configRead) {
      this.#configAgain = true;
      return this.#configRead;
    }
    this.#configRead = (async () => {
      try {
        do {
          this.#configAgain = false;
          await this.#readConfig();
        } while (this.#configAgain && !this.#stopped);
      } finally {
        this.#configRead = null;
      }
    })();
    return this.#configRead;
  }

  /** Unreachable: keeps what is shown (the link state says why); any other refusal (no gateway in that process): nothing to show. */
  async #readConfig(): Promise<void> {
    if (this.#stopped) return;
    const drops = this.#drops;
    let rejectedReload: ReloadRecord | null;
    try {
      const { last } = await this.#source.fetchConfigStatus(AbortSignal.timeout(5_000));
      rejectedReload = last && last.result !== 'applied' ? last : null;
    } catch (error) {
      const { code } = toControlProblem(error);
      if (code === 'unreachable' || code === 'timeout') return;
      rejectedReload = null;
    }
    if (!this.#stopped && drops === this.#drops) this.#set({ rejectedReload });
  }

  #subscribeEvents(): void {
    if (this.#stopped) return;
    let unsubscribe: () => void = () => {};
    unsubscribe = this.#source.subscribeEvents(this.#lastEventId, {
      onEvent: (event) => this.#onEvent(event),
      onError: (problem) => {
        unsubscribe();
        if (problem.code === 'unauthorized') return;
        const timer = setTimeout(() => this.#subscribeEvents(), this.#options.resubscribeMs);
        timer.unref?.();
        this.#stops.push(() => clearTimeout(timer));
      },
    });
    this.#stops.push(() => unsubscribe());
  }

  #onLink(link: LinkState): void {
    switch (link.kind) {
      case 'open': {
        const reconnected = this.#wasOpen;
        this.#wasOpen = true;
        this.#set({ connection: 'connected', problem: null, disconnectedAt: null });
        if (reconnected) {
          void this.refresh();
          void this.refreshConfig();
        }
        return;
      }
      case 'connecting':
        if (this.#wasOpen) this.#dropped({ connection: 'disconnected', problem: null });
        else this.#set({ connection: 'connecting', problem: null });
        return;
      case 'lost':
        this.#dropped({ connection: 'disconnected', problem: link.problem });
        return;
      case 'refused':
        this.#dropped({ connection: 'refused', problem: link.problem });
        return;
    }
  }

  #dropped(patch: Pick<LiveState, 'connection' | 'problem'>): void {
    this.#drops += 1;
    this.#set({ ...patch, disconnectedAt: this.#droppedAt() });
  }

  /** When the link dropped: kept through the retries, so "last update" does not creep forward. */
  #droppedAt(): number {
    return this.#state.disconnectedAt ?? this.#options.now();
  }

  #onEvent(event: DaemonEvent): void {
    this.#lastEventId = event.id;
    const known = this.#state.events;
    if (known.some((e) => e.id === event.id)) return;
    const events = [...known, event].slice(-this.#options.maxEvents);
    // Events the status snapshot already reflects (a replayed backlog) must not roll it back.
    const current = this.#state.status;
    const status = event.component && isCurrentBoot(event, current) && isAfter(event.id, current.lastEventId) ? withComponent(current, event.component) : current;
    this.#set({ events, status });
    if (event.type === 'daemon.started' || !isCurrentBoot(event, status)) void this.refresh();
    if (event.type === 'config.reloaded' || event.type === 'daemon.started') void this.refreshConfig();
  }

  #set(patch: Partial<LiveState>): void {
    this.#state = { ...this.#state, ...patch };
    for (const listener of this.#listeners) listener();
  }
}

/** Whether event id `a` comes after `b`; ids are `<bootId>:<seq>` of the same boot. */
function isAfter(a: string, b: string | undefined): boolean {
  if (!b) return true;
  return Number(a.slice(a.lastIndexOf(':') + 1)) > Number(b.slice(b.lastIndexOf(':') + 1));
}

function isCurrentBoot(event: DaemonEvent, status: SystemStatus): boolean {
  return event.id.startsWith(`${status.bootId}:`);
}

function withComponent(status: SystemStatus, component: ComponentStatus): SystemStatus {
  const exists = status.components.some((c) => c.name === component.name);
  const components = exists ? status.components.map((c) => (c.name === component.name ? component : c)) : [...status.components, component];
  return { ...status, components };
}
