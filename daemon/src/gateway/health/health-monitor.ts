/**
 * The daemon's health monitor for backends with `beta_health`: lives across reloads, runs
 * each backend's checks on its own timer, keeps the state of checks a reload left unchanged,
 * and reports every check and every state change.
 */
import type { BackendHealth, GatewayLogRecord, GatewayLogSink, HealthChange, HealthMonitor } from '../contracts.js';
import type { BackendConfig, GatewayConfig, Settings } from '../config/model.js';
import type { Logger } from '../../core/logger.js';
import { VERSION } from '../../core/version.js';
import { createTransport, type BackendTransport, type ProcessEnv } from '../backend/transport.js';
import { loggableUrl } from '../backend/headers.js';
import { checkUrl, runHealthCheck } from './health-check.js';
import { afterCheck, uncheckedHealth, unknownHealth } from './health-state.js';

const TIMELINE_LIMIT = 200;

export interface HealthMonitorOptions {
  /** Receives the check requests (`gateway_backend`, handler `health-check`) and state changes (`gateway_daemon`). */
  readonly logSink?: GatewayLogSink;
  /** Writes state changes when there is no logSink, and listener failures. */
  readonly logger: Logger;
  /** Called on each state change (e.g. to feed the control API's event bus). */
  readonly events?: (change: HealthChange) => void;
  /** Default `Portico/<version> health-check`; a `User-Agent` in the check's headers wins. */
  readonly userAgent?: string;
  /** For HTTP_PROXY / HTTPS_PROXY / NO_PROXY; the process environment by default. */
  readonly env?: ProcessEnv;
}

interface Entry {
  readonly name: string;
  config: BackendConfig;
  /** What the check depends on; null for a backend without a check. */
  readonly key: string | null;
  health: BackendHealth;
  transport: BackendTransport | null;
  timer: NodeJS.Timeout | null;
  inFlight: AbortController | null;
  stopped: boolean;
}

export function createHealthMonitor({ logSink, logger, events, userAgent = `Portico/${VERSION} health-check`, env = process.env }: HealthMonitorOptions): HealthMonitor {
  let entries = new Map<string, Entry>();
  let cached: Readonly<Record<string, BackendHealth>> | null = null;
  const timeline: HealthChange[] = [];
  const checkListeners = new Set<(backend: string, health: BackendHealth) => void>();
  const changeListeners = new Set<(change: HealthChange) => void>();
  const closing: Promise<void>[] = [];

  function notify<A extends unknown[]>(listeners: Iterable<(...args: A) => void>, ...args: A): void {
    for (const listener of listeners) {
      try {
        listener(...args);
      } catch (error) {
        logger.error('health listener failed', { error });
      }
    }
  }

  function setHealth(entry: Entry, next: BackendHealth): void {
    const previous = entry.health;
    entry.health = next;
    cached = null;
    if (previous.state === next.state) return;
    const change: HealthChange = { backend: entry.name, from: previous.state, to: next.state, at: next.since, error: next.error };
    timeline.push(change);
    if (timeline.length > TIMELINE_LIMIT) timeline.splice(0, timeline.length - TIMELINE_LIMIT);
    logChange(entry, change);
    notify(events ? [events, ...changeListeners] : changeListeners, change);
  }

  function logChange(entry: Entry, change: HealthChange): void {
    const level = change.to === 'unhealthy' ? 'error' : change.to === 'degraded' ? 'warn' : 'info';
    const message = `backend "${change.backend}": health ${change.from} → ${change.to}${change.error ? `: ${change.error}` : ''}`;
    const url = entry.config.health && entry.config.origin ? loggableUrl(checkUrl({ origin: entry.config.origin, health: entry.config.health })) : null;
    const fields = { backend: change.backend, from: change.from, to: change.to, error: change.error, ...(url ? { url } : {}) };
    if (logSink) logSink.write({ type: 'gateway_daemon', level, timestamp: change.at, message, ...fields });
    else logger.log(level, message, { component: 'gateway', ...fields });
  }

  function schedule(entry: Entry, delay: number): void {
    if (entry.stopped) return;
    entry.timer = setTimeout(() => void check(entry), delay);
    entry.timer.unref();
  }

  async function check(entry: Entry): Promise<void> {
    entry.timer = null;
    const { config } = entry;
    if (entry.stopped || !entry.transport || !config.health || !config.origin) return;
    const abort = new AbortController();
    entry.inFlight = abort;
    try {
      const result = await runHealthCheck({ backend: config, health: config.health, origin: config.origin, transport: entry.transport, userAgent }, abort.signal);
      if (entry.stopped) return;
      const next = afterCheck(entry.health, { error: result.error, at: new Date(), latencyMs: result.latencyMs }, config.health.failureThreshold);
      if (result.record && logSink) logSink.write(checkRecord(result.record, result.error, next.state !== entry.health.state));
      setHealth(entry, next);
      notify(checkListeners, entry.name, next);
    } catch (error) {
      logger.error(`backend "${entry.name}": health check failed to run`, { error });
    } finally {
      entry.inFlight = null;
      // The peer waits `interval` after each check; checks never overlap (timeout ≤ interval).
      schedule(entry, config.health.interval);
    }
  }

  function stopEntry(entry: Entry): void {
    entry.stopped = true;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    entry.inFlight?.abort(new Error('health check stopped'));
    if (entry.transport) closing.push(entry.transport.destroy().catch(() => {}));
    entry.transport = null;
  }

  function startEntry(name: string, config: BackendConfig, settings: Settings, key: string | null, previous: Entry | undefined): Entry {
    const now = new Date();
    const entry: Entry = { name, config, key, health: previous?.health ?? (key === null ? uncheckedHealth(now) : unknownHealth(now)), transport: null, timer: null, inFlight: null, stopped: false };
    const initial = key === null ? uncheckedHealth(now) : unknownHealth(now);
    if (previous) setHealth(entry, initial);
    else entry.health = initial;
    if (key === null) return entry;
    try {
      entry.transport = createTransport(config, settings, env);
    } catch (error) {
      // createBackendSet fails the same way, so such a config is not applied; stay unknown, say why.
      setHealth(entry, { ...entry.health, error: error instanceof Error ? error.message : String(error) });
      logger.error(`backend "${name}": health check not started`, { error });
      return entry;
    }
    schedule(entry, 0);
    return entry;
  }

  return {
    track(config: GatewayConfig): void {
      const next = new Map<string, Entry>();
      for (const [name, backend] of Object.entries(config.backends)) {
        const key = checkKey(backend, config.settings);
        const existing = entries.get(name);
        if (existing && existing.key === key) {
          existing.config = backend;
          next.set(name, existing);
          continue;
        }
        if (existing) stopEntry(existing);
        next.set(name, startEntry(name, backend, config.settings, key, existing));
      }
      for (const [name, entry] of entries) if (!next.has(name)) stopEntry(entry);
      entries = next;
      cached = null;
    },

    async stop(): Promise<void> {
      for (const entry of entries.values()) stopEntry(entry);
      await Promise.all(closing.splice(0));
    },

    snapshot(): Readonly<Record<string, BackendHealth>> {
      if (!cached) {
        const all: Record<string, BackendHealth> = {};
        for (const [name, entry] of entries) all[name] = entry.health;
        cached = Object.freeze(all);
      }
      return cached;
    },

    onCheck(listener) {
      checkListeners.add(listener);
      return () => checkListeners.delete(listener);
    },

    onChange(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },

    timeline: () => [...timeline],
  };
}

/**
 * Everything a check depends on: origin, the beta_health block, and the transport settings
 * (hostname, TLS, proxy). Equal keys across a reload keep the check, its state and timer.
 */
function checkKey(backend: BackendConfig, settings: Settings): string | null {
  if (!backend.health || !backend.origin) return null;
  return JSON.stringify({
    origin: backend.origin,
    health: backend.health,
    hostname: backend.hostname?.kind === 'static' ? backend.hostname.value : null,
    caFile: backend.caFile ?? settings.caFile,
    insecure: backend.disableCertificateValidation,
    http2: backend.http2,
    proxy: backend.proxy,
    noProxyFromEnv: backend.noProxyFromEnv ?? settings.noProxyFromEnv,
    connectTimeout: backend.connectTimeout,
  });
}

/** A check request's log line: failed checks and the ones that changed the state at warn/info, the rest at debug. */
function checkRecord(record: GatewayLogRecord, error: string, changed: boolean): GatewayLogRecord {
  const level = error ? 'warn' : changed ? 'info' : 'debug';
  return { ...record, level, ...(error ? { message: error } : {}) };
}
