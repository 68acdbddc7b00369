import type { ComponentState, ComponentStatus } from '../control/client-types.js';
import { StartupError } from './errors.js';
import type { Logger } from './logger.js';

/** A part of the daemon with a lifecycle; main wires them, none reaches into another. */
export interface Component {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Where it listens or what it holds, shown in status; read after start. */
  describe?(): string | null;
  /**
   * Called on SIGINT/SIGTERM before the shutdown delay, while everything still runs: e.g. the
   * gateway's health path turns 500 at once. stop() follows after the delay.
   */
  drain?(): void;
}

export type StateListener = (status: ComponentStatus) => void;

interface Entry {
  component: Component;
  status: ComponentStatus;
}

/** How long a component whose start failed may take to release what it began. */
const RELEASE_TIMEOUT_MS = 10_000;

/**
 * Starts components in registration order and stops them in reverse. A component that fails
 * to start is stopped itself (stop() must hold after a partial start), then stops the ones
 * already running, and surfaces as a StartupError naming it.
 */
export class ComponentHost {
  readonly #entries: Entry[] = [];
  readonly #listeners: StateListener[] = [];

  constructor(private readonly logger: Logger) {}

  register(component: Component): void {
    if (this.#entries.some((e) => e.component.name === component.name)) {
      throw new Error(`component '${component.name}' registered twice`);
    }
    this.#entries.push({ component, status: { name: component.name, state: 'registered', since: new Date().toISOString(), detail: null } });
  }

  /**
   * Registers `component` to start before (and so stop after) the one named `before`, or last
   * when that one is not registered: e.g. the services listener before the gateway that fronts it.
   */
  registerBefore(component: Component, before: string): void {
    this.register(component);
    const index = this.#entries.findIndex((e) => e.component.name === before);
    if (index === -1) return;
    const entry = this.#entries.pop()!;
    this.#entries.splice(index, 0, entry);
  }

  onStateChange(listener: StateListener): void {
    this.#listeners.push(listener);
  }

  statuses(): ComponentStatus[] {
    return this.#entries.map((e) => ({ ...e.status }));
  }

  /**
   * Starts the components in order; the first that fails stops those already running and
   * throws. Resolves false when `stopRequested` turned true before every component started.
   */
  async startAll(stopRequested: () => boolean = () => false): Promise<boolean> {
    for (const entry of this.#entries) {
      // A stop asked for while starting: the component starting finished its start; the rest stay
      // registered and are never started, so stopAll stops only what runs.
      if (stopRequested()) return false;
      this.#set(entry, 'starting', null);
      try {
        await entry.component.start();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.#set(entry, 'failed', message);
        await this.#release(entry.component);
        await this.stopAll(Number.POSITIVE_INFINITY);
        throw error instanceof StartupError ? error : new StartupError(entry.component.name, message, { cause: error });
      }
      this.#set(entry, 'running', entry.component.describe?.() ?? null);
    }
    return true;
  }

  /**
   * Stops a component whose start failed: what it began before failing (processes it forked, a
   * watcher, a timer) would otherwise keep the daemon running after it said it cannot start.
   */
  async #release(component: Component): Promise<void> {
    try {
      if (!(await withTimeout(component.stop(), RELEASE_TIMEOUT_MS))) this.logger.error('component did not stop in time after its start failed', { component: component.name, timeout_ms: RELEASE_TIMEOUT_MS });
    } catch (error) {
      this.logger.error('component failed to stop after its start failed', { component: component.name, error });
    }
  }

  /**
   * Reads a running component's describe() again and, when it changed, tells the listeners (the
   * consoles' status) with its state and `since` unchanged: e.g. a gateway serving process that died.
   */
  redescribe(name: string): void {
    const entry = this.#entries.find((e) => e.component.name === name);
    if (!entry || entry.status.state !== 'running') return;
    const detail = entry.component.describe?.() ?? null;
    if (detail === entry.status.detail) return;
    entry.status = { ...entry.status, detail };
    this.logger.info('component running', { component: name, ...(detail ? { detail } : {}) });
    for (const listener of this.#listeners) listener({ ...entry.status });
  }

  /** Tells every running component that shutdown began (see Component.drain). */
  drainAll(): void {
    for (const entry of this.#entries) {
      if (entry.status.state !== 'running') continue;
      try {
        entry.component.drain?.();
      } catch (error) {
        this.logger.error('component failed to begin draining', { component: entry.component.name, error });
      }
    }
  }

  /** Stops running components in reverse order; resolves false when the timeout ran out. */
  async stopAll(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (const entry of [...this.#entries].reverse()) {
      if (entry.status.state !== 'running' && entry.status.state !== 'starting') continue;
      this.#set(entry, 'stopping', entry.status.detail);
      const remaining = deadline - Date.now();
      try {
        const stopped = await withTimeout(entry.component.stop(), remaining);
        if (!stopped) {
          this.#set(entry, 'failed', `did not stop within ${timeoutMs} ms`);
          this.logger.error('component did not stop in time', { component: entry.component.name, timeout_ms: timeoutMs });
          return false;
        }
        this.#set(entry, 'stopped', null);
      } catch (error) {
        this.#set(entry, 'failed', error instanceof Error ? error.message : String(error));
        this.logger.error('component failed to stop', { component: entry.component.name, error });
      }
    }
    return true;
  }

  #set(entry: Entry, state: ComponentState, detail: string | null): void {
    entry.status = { name: entry.component.name, state, since: new Date().toISOString(), detail };
    const level = state === 'failed' ? 'error' : 'info';
    this.logger.log(level, `component ${state}`, { component: entry.component.name, ...(detail ? { detail } : {}) });
    for (const listener of this.#listeners) listener({ ...entry.status });
  }
}

async function withTimeout(promise: Promise<void>, ms: number): Promise<boolean> {
  if (!Number.isFinite(ms)) {
    await promise;
    return true;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
