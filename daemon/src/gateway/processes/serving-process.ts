/**
 * A gateway serving process: one of the cluster workers the daemon forks when
 * PORTICO_GATEWAY_PROCESSES is above 1. It serves the gateway's ports (shared with the other
 * serving processes through the cluster, round robin) with the configuration the daemon
 * validated, sent as its file texts; the daemon keeps the reloads, the health checks, the
 * metrics exporter and the control API. Access and backend lines go to the stdout it shares
 * with the daemon, in whole-line writes.
 */
import { Logger } from '../../core/logger.js';
import { formatDiagnostic } from '../../hcl/index.js';
import { atomicStdoutWrites, batchedStdoutSink, flushStdout } from '../../core/stdout-batch.js';
import { VERSION } from '../../core/version.js';
import { eventDetails } from '../../control/event-details.js';
import { useReplayClaims } from '../access/saml/index.js';
import { createBackendSet, SharedTransports } from '../backend/index.js';
import { loadGatewayConfig } from '../config/load.js';
import { ReusableBackends } from '../config/backend-reuse.js';
import type { GatewayConfig } from '../config/model.js';
import { createEndpointHandler } from '../endpoint/index.js';
import { GatewayServer, type PreparedConfig } from '../http/gateway-server.js';
import { createGatewayLogSink } from '../logs/log-sink.js';
import { createGatewayMetrics, createMetricsSink } from '../metrics/index.js';
import { createHealthMirror } from './health-mirror.js';
import type { FromServing, ServingInit, ToServing } from './protocol.js';

/** How often the login providers' state is compared with what the daemon was last told. */
const LOGIN_STATUS_MS = 2000;
/** A SAML login waits this long for the daemon to say whether its assertion was used before, then fails. */
const CLAIM_TIMEOUT_MS = 5000;

function send(message: FromServing): void {
  if (process.connected) process.send!(message);
}

/** Runs until the daemon says stop (or goes away). */
export function runServingProcess(): void {
  if (!process.send) throw new Error('a gateway serving process runs only as a worker of the daemon (PORTICO_GATEWAY_PROCESSES)');
  // The daemon decides when to stop: a terminal's Ctrl-C reaches the whole process group, and the
  // requests in flight here must get the same shutdown delay and timeout as everywhere else.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);
  atomicStdoutWrites();
  // Without its daemon nothing would reload, check or stop this process.
  process.on('disconnect', () => {
    flushStdout();
    process.exit(1);
  });
  let serving: ReturnType<typeof startServing> | null = null;
  process.on('message', (message: ToServing) => {
    if (message.t === 'init') {
      serving ??= startServing(message);
      send({ t: 'ready' });
      return;
    }
    serving?.handle(message);
  });
  send({ t: 'up' });
}

function startServing(init: ServingInit): { handle(message: ToServing): void } {
  const logger = new Logger({
    format: init.logFormat,
    level: init.logLevel,
    sink: batchedStdoutSink,
    base: { gateway_process: init.index },
    onNotice: (level, message, fields) => {
      const component = typeof fields.component === 'string' ? `${fields.component}: ` : '';
      send({ t: 'notice', level, message: `${component}${message} (gateway process ${init.index})`, details: eventDetails(fields) ?? null });
    },
  }).child({ component: 'gateway' });
  const metrics = createGatewayMetrics({ version: VERSION });
  const logSink = createMetricsSink(createGatewayLogSink(), metrics);
  const health = createHealthMirror();
  // The backend sets of this process share the transports of unchanged backends over reloads.
  const transports = new SharedTransports();
  const server = new GatewayServer({
    endpointHandler: createEndpointHandler({ logger }),
    createBackends: (config) => createBackendSet(config, { health, logSink, env: init.env, transports }),
    logSink,
    logger,
    shutdownDelayMs: init.shutdownDelayMs,
    // The same configuration's warnings (routes that can never serve, an unusable error_file) once, not once per process.
    logsConfigWarnings: init.index === 1,
    shutdownTimeoutMs: init.shutdownTimeoutMs,
    limits: init.limits,
    devCertificateDir: init.dataDir,
    onAccessDenied: (denial) => send({ t: 'denial', denial }),
  });
  const prepared = new Map<number, { config: GatewayConfig; prepared: PreparedConfig }>();
  // A SAML response used in one serving process must be refused in every other: the daemon keeps the used ones.
  const claims = new Map<number, (fresh: boolean) => void>();
  let claimSeq = 0;
  useReplayClaims({
    claim: (key, expiresAtMs, nowMs) =>
      new Promise<boolean>((resolve, reject) => {
        const id = ++claimSeq;
        const timer = setTimeout(() => {
          claims.delete(id);
          reject(new Error(`the daemon did not say within ${CLAIM_TIMEOUT_MS / 1000}s whether the assertion was used before`));
        }, CLAIM_TIMEOUT_MS);
        claims.set(id, (fresh) => {
          clearTimeout(timer);
          resolve(fresh);
        });
        send({ t: 'claim', id, key, expiresAtMs: Number.isFinite(expiresAtMs) ? expiresAtMs : null, nowMs });
      }),
  });
  let loginSent = '[]';
  const reportLogins = (): void => {
    const text = JSON.stringify(server.access?.loginStatus() ?? []);
    if (text === loginSent) return;
    loginSent = text;
    send({ t: 'login', status: JSON.parse(text) as [] });
  };
  const loginTimer = setInterval(reportLogins, LOGIN_STATUS_MS).unref();
  let stopping = false;

  /** The prepare under way: a stop waits for it, then aborts what it prepared. */
  let preparing: Promise<void> = Promise.resolve();
  /** The last load's unchanged backends, taken as they are by the next. */
  let reusable = ReusableBackends.EMPTY;

  async function prepare(id: number, texts: readonly (readonly [string, string])[]): Promise<void> {
    try {
      const loaded = await loadGatewayConfig(texts.map(([path]) => path), init.env, { texts: new Map(texts), reuse: reusable });
      reusable = loaded.reusable;
      if (!loaded.config) {
        const first = loaded.diagnostics.find((d) => d.severity === 'error');
        throw new Error(`the configuration the daemon validated did not load in a serving process: ${first ? formatDiagnostic(first) : 'no diagnostic'}`);
      }
      prepared.set(id, { config: loaded.config, prepared: await server.prepare(loaded.config) });
      send({ t: 'prepared', id, error: null });
    } catch (error) {
      send({ t: 'prepared', id, error: error instanceof Error ? error.message : String(error) });
    }
  }

  async function stop(): Promise<void> {
    if (stopping) return;
    stopping = true;
    clearInterval(loginTimer);
    await preparing;
    for (const { prepared: p } of prepared.values()) await p.abort();
    prepared.clear();
    await server.stop();
    flushStdout();
    process.exit(0);
  }

  return {
    handle(message) {
      switch (message.t) {
        case 'prepare':
          preparing = prepare(message.id, message.texts);
          return;
        case 'commit': {
          const entry = prepared.get(message.id);
          prepared.delete(message.id);
          if (entry) {
            entry.prepared.commit();
            metrics.setServiceName(entry.config.settings.betaServiceName);
          }
          send({ t: 'committed', id: message.id, addresses: server.addresses() });
          reportLogins();
          return;
        }
        case 'abort': {
          const entry = prepared.get(message.id);
          prepared.delete(message.id);
          void (entry ? entry.prepared.abort() : Promise.resolve()).finally(() => send({ t: 'aborted', id: message.id }));
          return;
        }
        case 'health':
          health.update(message.snapshot);
          return;
        case 'metrics':
          send({ t: 'metrics', id: message.id, families: metrics.families() });
          return;
        case 'claimed': {
          const answer = claims.get(message.id);
          claims.delete(message.id);
          answer?.(message.fresh);
          return;
        }
        case 'stop':
          void stop();
          return;
        case 'init':
          return;
      }
    },
  };
}
