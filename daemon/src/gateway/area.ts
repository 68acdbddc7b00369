import type { Area, DaemonContext } from '../core/area.js';
import type { Component } from '../core/component.js';
import { VERSION } from '../core/version.js';
import { createBackendSet, SharedTransports } from './backend/index.js';
import type { GatewayState, ReloadTarget } from './contracts.js';
import { DenialDigest } from './control/denial-digest.js';
import { createGatewayControl } from './control/control-service.js';
import { BACKENDS_SERVICE, CONFIG_SERVICE } from './control/control-router.js';
import { createEndpointHandler } from './endpoint/index.js';
import { createHealthMonitor } from './health/index.js';
import type { GatewayFrontSettings } from './http/front-settings.js';
import { GatewayServer } from './http/gateway-server.js';
import { createGatewayLogSink, logSinkSettings } from './logs/log-sink.js';
import { createGatewayMetrics, createMetricsSink, MetricsExporter } from './metrics/index.js';
import { ServingPool } from './processes/serving-pool.js';

/**
 * The HTTP gateway: the configuration files (hot reloaded), the HTTP front serving them,
 * the backends with their health checks, and the `config` / `backends` control services.
 * Without a configuration file the gateway stays off and says how to turn it on. It offers
 * the serving configuration and health to other areas (null while off).
 */
export function gatewayArea({ front, processes = 1 }: { front: GatewayFrontSettings; processes?: number }): Area<GatewayState | null> {
  return {
  name: 'gateway',
  modes: ['all', 'gateway'],
  install(ctx: DaemonContext): GatewayState | null {
    const logger = ctx.logger.child({ component: 'gateway' });
    if (ctx.configFiles.length === 0) {
      logger.warn('gateway off: no configuration file; pass -f FILE or -d DIR, set PORTICO_CONFIG, or run from a checkout that has config/portico.hcl');
      return null;
    }
    // One sink for access and backend lines (each applied configuration sets its format and
    // level); metrics count every record before the level filter.
    const metrics = createGatewayMetrics({ version: VERSION });
    const logSink = createMetricsSink(createGatewayLogSink(), metrics);
    const health = createHealthMonitor({ logSink, logger, userAgent: `Portico/${VERSION} health-check` });
    metrics.trackHealth(health);
    const denials = new DenialDigest({ publish: (event) => ctx.events.publish(event) });
    // With PORTICO_GATEWAY_PROCESSES above 1 the ports are served by that many forked processes
    // (gateway/processes); this process keeps the reloads, the checks, the metrics and the control API.
    const pool =
      processes > 1
        ? new ServingPool({
            processes,
            init: {
              env: { ...ctx.env },
              // The connection cap holds for the gateway as a whole.
              limits: { ...front, maxConnections: Math.ceil(front.maxConnections / processes) },
              shutdownDelayMs: ctx.settings.shutdownDelayMs,
              shutdownTimeoutMs: ctx.settings.shutdownTimeoutMs,
              dataDir: ctx.settings.dataDir,
              logFormat: ctx.settings.logFormat,
              logLevel: ctx.settings.logLevel,
            },
            health,
            logger,
            onDenial: (denial) => denials.record(denial),
            onNotice: (level, message, details) => ctx.events.publish({ type: 'log', level, message: `gateway: ${message}`, ...(details ? { details } : {}) }),
            onMembership: () => ctx.host.redescribe('gateway'),
          })
        : null;
    // One gateway's backend sets share the transports of unchanged backends over reloads.
    const transports = new SharedTransports();
    const exporter = new MetricsExporter({ metrics, logger, ...(pool ? { gather: () => pool.gather() } : {}) });
    const server = pool
      ? null
      : new GatewayServer({
          endpointHandler: createEndpointHandler({ logger }),
          createBackends: (config) => createBackendSet(config, { health, logSink, env: ctx.env, transports }),
          logSink,
          logger,
          shutdownDelayMs: ctx.settings.shutdownDelayMs,
          shutdownTimeoutMs: ctx.settings.shutdownTimeoutMs,
          limits: front,
          devCertificateDir: ctx.settings.dataDir,
          onAccessDenied: (denial) => denials.record(denial),
        });
    const target: ReloadTarget = {
      async apply(config, source) {
        // Both ports are bound before anything switches, so a taken port fails the reload cleanly.
        const prepared = await exporter.prepare(config);
        try {
          if (server) await server.apply(config);
          else await pool!.apply(config, source?.texts ?? new Map());
        } catch (error) {
          await prepared.abort();
          throw error;
        }
        prepared.commit();
        // The serving processes write their own lines; the health checks' lines are written here.
        if (pool) logSink.configure(logSinkSettings(config.settings));
        health.track(config);
        pool?.pushHealth();
      },
    };
    const gateway = createGatewayControl({ files: ctx.configPaths, env: ctx.env, target, health, events: ctx.events, logger, loginStatus: () => (server ? (server.access?.loginStatus() ?? []) : pool!.loginStatus()) });
    gateway.manager.onRecord((record) => metrics.recordReload(record.result));
    const onHangup = (): void => {
      logger.info('SIGHUP: reloading the gateway configuration');
      gateway.manager.onSignal();
    };

    const component: Component = {
      name: 'gateway',
      // Should the start fail, the host calls stop(): the processes already forked end with it.
      async start() {
        if (pool) {
          await pool.start();
          logger.info(`gateway serving processes started: ${processes} (PORTICO_GATEWAY_PROCESSES)`, { pids: pool.pids() });
        }
        await gateway.manager.start();
        process.on('SIGHUP', onHangup);
      },
      drain() {
        // Health turns 500 now; requests are still served until the shutdown delay ends.
        void (server ? server.stop() : pool!.stop());
      },
      async stop() {
        process.off('SIGHUP', onHangup);
        await gateway.manager.stop();
        await (server ? server.stop() : pool!.stop());
        await exporter.stop();
        await health.stop();
        denials.close();
        gateway.close();
      },
      describe: () => {
        const metricsAt = exporter.address();
        const addresses = server ? server.addresses() : pool!.addresses();
        return `${addresses.map((a) => `http://${a}`).join(', ')}${pool ? ` (${pool.describe()})` : ''} from ${ctx.configFiles.join(', ')}${metricsAt ? `; metrics at http://${metricsAt}/metrics` : ''}`;
      },
    };
    ctx.host.register(component);
    ctx.control.provide(CONFIG_SERVICE, gateway.config).provide(BACKENDS_SERVICE, gateway.backends);
    return gateway.state;
  },
  };
}
