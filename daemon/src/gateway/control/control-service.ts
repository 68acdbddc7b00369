import type { PublishInput } from '../../control/event-bus.js';
import type { LoginStatus } from '../access/access-check.js';
import type { GatewayConfig } from '../config/model.js';
import type { HealthChange, HealthMonitor, GatewayState, ReloadTarget } from '../contracts.js';
import { ConfigManager, type ReloadLogger } from '../reload/config-manager.js';
import { backendsControl, type BackendsControl } from './backends-control.js';
import { configControl, type ConfigControl } from './config-control.js';
import type { ReloadRecord } from './control-types.js';

export interface GatewayControlOptions {
  /** Configuration files in load order; a directory stands for its `*.hcl` files. */
  files: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** The HTTP front: builds the new runtime aside and swaps, or throws leaving the old one serving. */
  target: ReloadTarget;
  health: HealthMonitor;
  /** The daemon's event bus (`config.reloaded`, `backend.health`). */
  events: { publish(input: PublishInput): unknown };
  logger: ReloadLogger;
  debounceMs?: number;
  /** The serving login controls' providers and last failures (the HTTP front's access set). */
  loginStatus?: () => readonly LoginStatus[];
}

export interface GatewayControl {
  /** start() loads and applies (rejecting with the diagnostics on a bad file), stop(), onSignal() for SIGHUP. */
  manager: ConfigManager;
  /** Provided as the CONFIG_SERVICE and BACKENDS_SERVICE control services. */
  config: ConfigControl;
  backends: BackendsControl;
  /** Offered to other areas (cds) by the gateway area: the serving configuration and health, with a listener per applied config. */
  state: GatewayState;
  /** After `manager.stop()`: stops listening to the health monitor. */
  close(): void;
}

/**
 * One call for the gateway area: the ConfigManager over the files, the control services of
 * `config` and `backends`, and the event-bus announcements of reloads and health changes.
 */
export function createGatewayControl(options: GatewayControlOptions): GatewayControl {
  const configListeners = new Set<(config: GatewayConfig) => void>();
  const manager = new ConfigManager({
    files: options.files,
    env: options.env,
    target: options.target,
    logger: options.logger,
    ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
    onReload(record) {
      options.events.publish(reloadEvent(record));
      if (record.result === 'applied' && manager.config) for (const listener of configListeners) listener(manager.config);
    },
  });
  const offHealth = options.health.onChange((change) => options.events.publish(healthEvent(change)));
  const backends = backendsControl(() => manager.config, options.health);
  const state: GatewayState = {
    get config() {
      return manager.config;
    },
    health: options.health,
    onConfig(listener) {
      configListeners.add(listener);
      return () => configListeners.delete(listener);
    },
  };
  return {
    manager,
    config: configControl(manager, options.loginStatus ?? (() => [])),
    backends,
    state,
    close() {
      offHealth();
      backends.close();
    },
  };
}

const FIRST_DIAGNOSTICS = 3;

/** One line for the Events view; the full record is in config.history. */
export function reloadEvent(record: ReloadRecord): PublishInput {
  const how = `gateway config reload (${record.trigger})`;
  if (record.result === 'applied') return { type: 'config.reloaded', level: 'info', message: `${how} applied in ${Math.round(record.durationMs)} ms: ${record.diff?.summary ?? 'unchanged'}` };
  if (record.result === 'failed') return { type: 'config.reloaded', level: 'error', message: `${how} failed: ${record.error ?? 'unknown error'}; the previous configuration keeps serving` };
  const errors = record.diagnostics.filter((d) => d.severity === 'error');
  const shown = errors.slice(0, FIRST_DIAGNOSTICS).map((d) => d.text).join(' | ');
  const more = errors.length > FIRST_DIAGNOSTICS ? ` (+${errors.length - FIRST_DIAGNOSTICS} more in config.history)` : '';
  return { type: 'config.reloaded', level: 'error', message: `${how} rejected: ${shown}${more}; the previous configuration keeps serving` };
}

export function healthEvent(change: HealthChange): PublishInput {
  const level = change.to === 'unhealthy' ? 'error' : change.to === 'degraded' ? 'warn' : 'info';
  const why = change.error ? `: ${change.error}` : '';
  return { type: 'backend.health', level, message: `backend ${change.backend}: ${change.from} → ${change.to}${why}` };
}
