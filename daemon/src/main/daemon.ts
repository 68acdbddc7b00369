import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadControlToken } from '../control/auth.js';
import type { DaemonMode, SystemStatus } from '../control/client-types.js';
import { ControlComponent } from '../control/control-component.js';
import { EventBus } from '../control/event-bus.js';
import { eventDetails } from '../control/event-details.js';
import { EventRelay } from '../control/event-relay.js';
import { ControlServices } from '../control/trpc.js';
import type { DaemonContext } from '../core/area.js';
import { ComponentHost } from '../core/component.js';
import { resolveConfigSources, type ConfigSources } from '../core/config-sources.js';
import { StartupError } from '../core/errors.js';
import { Logger } from '../core/logger.js';
import { batchedStdoutSink } from '../core/stdout-batch.js';
import { RunMarker } from '../core/run-marker.js';
import { ServicesListener } from '../core/services-listener.js';
import { VERSION } from '../core/version.js';
import { gatewayEnvironment } from '../gateway/config/token-key.js';
import { StoreComponent } from '../store/store-component.js';
import { appRouter } from './app-router.js';
import { DAEMON_MIGRATIONS, installAreas } from './areas.js';
import type { PorticoSettings } from './settings.js';

export interface DaemonOptions {
  mode: DaemonMode;
  settings: PorticoSettings;
  configFiles: string[];
  configDirs: string[];
}

/** Time the components after the gateway get to stop once its in-flight requests had the shutdown timeout. */
const STOP_MARGIN_MS = 5000;

/** Where the built web dashboard lives in a checkout: <repo>/console-web/dist. */
const WEB_ROOT = fileURLToPath(new URL('../../../console-web/dist/', import.meta.url));

/**
 * Runs the daemon until SIGINT/SIGTERM. Resolves with the process exit code: 0 after a clean
 * stop, 1 when a component failed to start or did not stop within the shutdown timeout.
 */
export async function runDaemon({ mode, settings, configFiles, configDirs }: DaemonOptions): Promise<number> {
  const bootId = randomBytes(6).toString('hex');
  const startedAt = new Date();
  const events = new EventBus(bootId);
  const logger = new Logger({
    format: settings.logFormat,
    level: settings.logLevel,
    // Lines of a turn go out together (a callback worker logs a line per delivery); errors at once.
    sink: batchedStdoutSink,
    base: {},
    onNotice: (level, message, fields) => {
      const component = typeof fields.component === 'string' ? `${fields.component}: ` : '';
      events.publish({ type: 'log', level, message: `${component}${message}`, details: eventDetails(fields) });
    },
  });

  let config: ConfigSources;
  let token: string;
  let gatewayEnv: NodeJS.ProcessEnv;
  let marker: RunMarker;
  try {
    gatewayEnv = gatewayEnvironment(process.env, settings.dataDir);
    config = resolveConfigSources(configFiles, configDirs, process.env.PORTICO_CONFIG);
    const loaded = loadControlToken(settings.dataDir, settings.controlToken, logger);
    token = loaded.token;
    if (loaded.source === 'created') logger.info('created the control token', { file: loaded.file });
    const claimed = RunMarker.claim(settings.dataDir, mode, startedAt);
    marker = claimed.marker;
    for (const run of claimed.unclean) {
      logger.warn(`the previous run (pid ${run.pid}, mode ${run.mode}, started ${run.startedAt}) did not stop cleanly: it was killed or crashed; its last log lines tell why`, { pid: run.pid, mode: run.mode, started_at: run.startedAt });
    }
  } catch (error) {
    logger.error(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }

  const host = new ComponentHost(logger);
  const store = new StoreComponent({ databaseUrl: settings.databaseUrl, dataDir: settings.dataDir }, DAEMON_MIGRATIONS, { bootId, version: VERSION, mode }, logger.child({ component: 'store' }));

  const status = async (): Promise<SystemStatus> => ({
    version: VERSION,
    mode,
    pid: process.pid,
    startedAt: startedAt.toISOString(),
    uptimeSeconds: Math.floor((Date.now() - startedAt.getTime()) / 1000),
    bootId,
    lastEventId: events.lastId,
    store: {
      kind: settings.databaseUrl ? 'postgres' : 'sqlite',
      location: store.describe() === null ? '' : store.store.location,
      schemaVersion: store.schemaVersion,
    },
    components: host.statuses(),
  });
  const services = new ControlServices(status, events);
  const control = new ControlComponent(settings.control, token, services, appRouter, WEB_ROOT, logger.child({ component: 'control' }));

  host.onStateChange((component) => {
    events.publish({
      type: 'component.state',
      level: component.state === 'failed' ? 'error' : 'info',
      message: `${component.name} ${component.state}${component.detail ? `: ${component.detail}` : ''}`,
      component,
    });
  });
  host.register(store);
  // Right after the store: it passes on the events of every component that starts after it.
  host.register(new EventRelay({ events, store: () => store.store, origin: { bootId, mode, pid: process.pid, host: hostname() }, logger: logger.child({ component: 'event-relay' }) }));
  const servicesListener = new ServicesListener(settings.services, logger.child({ component: 'services' }));
  const ctx: DaemonContext = {
    mode,
    settings,
    env: gatewayEnv,
    configFiles: config.files,
    configPaths: config.paths,
    logger,
    events,
    host,
    store: () => store.store,
    services: servicesListener,
    control: services,
  };
  installAreas(ctx, { gatewayFront: settings.gatewayFront, gatewayProcesses: settings.gatewayProcesses });
  if (servicesListener.hasMounts) host.registerBefore(servicesListener, 'gateway');
  host.register(control);

  logger.info('portico starting', { version: VERSION, mode, pid: process.pid, data_dir: settings.dataDir, config: config.files });
  const stopping = waitForStopSignal(logger);
  let complete: boolean;
  try {
    complete = await host.startAll(() => stopping.requested);
  } catch (error) {
    const named = error instanceof StartupError ? error.message : `daemon: ${String(error)}`;
    logger.error(`cannot start: ${named}`);
    stopping.dispose();
    marker.release();
    return 1;
  }
  stopping.started();
  if (complete) {
    events.publish({ type: 'daemon.started', message: `portico ${VERSION} started in mode ${mode}` });
    logger.info(`ready: web dashboard and control API at ${control.url} (sign in with the token in ${settings.controlToken ? 'PORTICO_CONTROL_TOKEN' : `${settings.dataDir}/control.token`})`);
  }

  const signal = await stopping.signal;
  events.publish({ type: 'daemon.stopping', message: `stopping on ${signal}` });
  logger.info('stopping', { signal, delay_ms: settings.shutdownDelayMs, timeout_ms: settings.shutdownTimeoutMs });
  host.drainAll();
  if (settings.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, settings.shutdownDelayMs));
  // In-flight gateway requests get the shutdown timeout; the margin lets the rest stop after them.
  const clean = await host.stopAll(settings.shutdownTimeoutMs + STOP_MARGIN_MS);
  logger.info(clean ? 'stopped' : 'stopped with components still running after the shutdown timeout');
  marker.release();
  return clean ? 0 : 1;
}

interface StopSignal {
  /** The first SIGINT/SIGTERM. */
  readonly signal: Promise<NodeJS.Signals>;
  /** True once the first signal came. */
  readonly requested: boolean;
  /** Start is over: a signal from now on is an ordinary stop. */
  started(): void;
  dispose(): void;
}

/**
 * Resolves with the first SIGINT/SIGTERM; a second one exits at once. A signal while the
 * components are starting says so at once: the component starting then finishes its start,
 * the rest are not started, and everything running stops as after any signal.
 */
function waitForStopSignal(logger: Logger): StopSignal {
  let onSignal: (s: NodeJS.Signals) => void = () => {};
  let requested = false;
  let starting = true;
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (s) => {
      if (requested) {
        logger.warn(`second ${s}: exiting now`);
        process.exit(1);
      }
      requested = true;
      if (starting) logger.info(`${s} while starting: the component starting now finishes its start, the rest are not started, then the daemon stops (${s} again exits at once)`, { signal: s });
      resolve(s);
    };
  });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal,
    get requested() {
      return requested;
    },
    started() {
      starting = false;
    },
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
