/**
 * Test support wired the way the gateway area wires it: a real GatewayServer with the real
 * EndpointHandler and BackendSet (undici), whose one log sink is the metrics sink around the
 * stdout-style sink, and a MetricsExporter on loopback kept in step with each applied config.
 */
import { afterEachTest } from '../../../testing/after-each-test.js';
import { createBackendSet } from '../../backend/index.js';
import type { GatewayConfig } from '../../config/model.js';
import { loadOk } from '../../config/testing/config-files.js';
import type { HealthMonitor } from '../../contracts.js';
import { createEndpointHandler } from '../../endpoint/index.js';
import { createHealthMonitor } from '../../health/index.js';
import { testLogger } from '../../backend/testing/backend-fixture.js';
import { GatewayServer } from '../../http/gateway-server.js';
import { createGatewayLogSink } from '../../logs/log-sink.js';
import { createGatewayMetrics, type GatewayMetrics } from '../gateway-metrics.js';
import type { MetricsExporter } from '../metrics-exporter.js';
import { createMetricsSink } from '../metrics-sink.js';
import { loopbackExporter } from './scrape.js';
import type { FrontLimits } from '../../http/front-limits.js';

const servers: GatewayServer[] = [];
const monitors: HealthMonitor[] = [];
afterEachTest(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await Promise.all(monitors.splice(0).map((m) => m.stop()));
});

export interface MeteredGateway {
  readonly metrics: GatewayMetrics;
  readonly exporter: MetricsExporter;
  readonly server: GatewayServer;
  /** Lines the inner sink printed (it filters by the config's log_level). */
  readonly lines: string[];
  /** Applies a config to exporter and server together: all or nothing. */
  apply(config: GatewayConfig): Promise<void>;
  /** `http://127.0.0.1:<port>` of the gateway's first configured port. */
  url(path?: string): string;
}

/** With `health`, a real HealthMonitor (logging through the metrics sink) runs the backends' checks. */
export async function startMeteredGateway(hcl: string, options: { health?: boolean; limits?: Partial<FrontLimits> } = {}): Promise<MeteredGateway> {
  const config = await loadOk({ 'portico.hcl': hcl }, {});
  const lines: string[] = [];
  const metrics = createGatewayMetrics({ version: '0.0.0-test' });
  const logSink = createMetricsSink(createGatewayLogSink({ write: (line) => lines.push(line) }), metrics);
  let health: HealthMonitor | null = null;
  if (options.health) {
    const monitor = createHealthMonitor({ logSink, logger: testLogger(), env: {} });
    monitors.push(monitor);
    metrics.trackHealth(monitor);
    health = monitor;
  }
  const server = new GatewayServer({
    endpointHandler: createEndpointHandler({ logger: { warn: () => undefined } }),
    createBackends: (cfg) =>
      createBackendSet(cfg, {
        health: health ?? { track: () => undefined, stop: async () => undefined, snapshot: () => ({}), onCheck: () => () => undefined, onChange: () => () => undefined, timeline: () => [] },
        logSink,
        env: {},
      }),
    logSink,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    shutdownDelayMs: 0,
    shutdownTimeoutMs: 1000,
    listenHost: '127.0.0.1',
    ...(options.limits ? { limits: options.limits } : {}),
  });
  servers.push(server);
  const exporter = loopbackExporter(metrics);
  const apply = async (next: GatewayConfig): Promise<void> => {
    const prepared = await exporter.prepare(next);
    try {
      await server.apply(next);
    } catch (error) {
      await prepared.abort();
      throw error;
    }
    prepared.commit();
    health?.track(next);
  };
  await apply(config);
  return {
    metrics,
    exporter,
    server,
    lines,
    apply,
    url(path = '/') {
      const port = server.config?.servers[0]?.hosts[0]?.port ?? 0;
      return `http://127.0.0.1:${server.boundPort(port) ?? 0}${path}`;
    },
  };
}

/** The exporter's bound port; fails the test when it is off. */
export function exporterPort(gw: { exporter: MetricsExporter }): number {
  const port = gw.exporter.boundPort();
  if (port === null) throw new Error('the metrics exporter is not listening');
  return port;
}

/** Loads one HCL file (must be valid). */
export function loadConfig(hcl: string): Promise<GatewayConfig> {
  return loadOk({ 'portico.hcl': hcl }, {});
}
