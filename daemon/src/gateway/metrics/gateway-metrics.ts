/**
 * The gateway's metrics: what every access and backend log record says (counts, durations,
 * errors), the reload outcomes, the backends' health read from the HealthMonitor at scrape
 * time, build info and process figures. Rendered in the Prometheus text format.
 */
import type { GatewayLogRecord, HealthMonitor } from '../contracts.js';
import { renderExposition } from './exposition.js';
import { CollectedGauge, Counter, Histogram, type Instrument } from './instruments.js';

/** The outcomes a reload record carries (`ReloadRecord.result`). */
export type ReloadResult = 'applied' | 'rejected' | 'failed';
const RELOAD_RESULTS: readonly ReloadResult[] = ['applied', 'rejected', 'failed'];
const HEALTH_STATES = ['unknown', 'healthy', 'degraded', 'unhealthy'] as const;
/** The handler name of health-check exchanges (gateway/health): counted apart from traffic. */
const HEALTH_CHECK_HANDLER = 'health-check';
/** The code label of a backend exchange that got no response. */
export const NO_RESPONSE_CODE = 'none';

export interface GatewayMetricsOptions {
  /** The daemon version for `gateway_build_info`. */
  readonly version: string;
  /** Until the first configuration is applied (`beta_service_name`'s default). */
  readonly serviceName?: string;
}

export interface GatewayMetrics {
  /** Counts one log record (access and backend records; others are ignored). Never throws. */
  observe(record: GatewayLogRecord): void;
  /**
   * Reads this monitor at scrape time for `gateway_backend_up` and `gateway_backend_health_state`
   * (set after creating it: the monitor logs its checks through the metrics sink).
   */
  trackHealth(monitor: HealthMonitor): void;
  /** Counts one reload by its outcome. */
  recordReload(result: ReloadResult): void;
  /** The `service_name` label of what is observed from now on. */
  setServiceName(name: string): void;
  readonly serviceName: string;
  /** The exposition text of every metric. */
  render(): string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value));
const msToSeconds = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value / 1000 : null);
const totalMs = (record: GatewayLogRecord): unknown => (record['timings'] as { total?: unknown } | null | undefined)?.total;

export function createGatewayMetrics({ version, serviceName: initialName = 'gateway' }: GatewayMetricsOptions): GatewayMetrics {
  let serviceName = initialName;
  let health: HealthMonitor | null = null;
  const route = ['service_name', 'server', 'api', 'endpoint'];
  const clientRequests = new Counter('gateway_client_requests_total', 'Client requests answered, by server, api, endpoint pattern, method and status code.', [...route, 'method', 'code']);
  const clientDuration = new Histogram('gateway_client_request_duration_seconds', 'Time from a client request\'s arrival to the end of its response, by server, api and endpoint pattern.', route);
  const clientErrors = new Counter('gateway_client_request_errors_total', 'Client requests that ended in a gateway error, by error type.', [...route, 'error_type']);
  const backendRequests = new Counter('gateway_backend_requests_total', 'Requests to backends (proxy and request blocks), by backend and status code ("none" when no response came).', ['service_name', 'backend', 'code']);
  const backendDuration = new Histogram('gateway_backend_request_duration_seconds', 'Duration of backend requests until their response ended or failed, by backend.', ['service_name', 'backend']);
  const backendErrors = new Counter('gateway_backend_request_errors_total', 'Backend requests that failed, by error type.', ['service_name', 'backend', 'error_type']);
  const healthChecks = new Counter('gateway_backend_health_checks_total', 'Health check requests (beta_health), by backend and status code ("none" when no response came).', ['service_name', 'backend', 'code']);
  const reloads = new Counter('gateway_config_reloads_total', 'Configuration loads and reloads by result: applied, rejected (invalid) or failed (valid but could not be applied).', ['service_name', 'result']);
  let lastReload: { ok: boolean; successAt: number | null } | null = null;

  const healthSnapshot = (): [string, { state: (typeof HEALTH_STATES)[number]; healthy: boolean }][] => Object.entries(health?.snapshot() ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const instruments: Instrument[] = [
    clientRequests,
    clientDuration,
    clientErrors,
    backendRequests,
    backendDuration,
    backendErrors,
    healthChecks,
    new CollectedGauge('gateway_backend_up', 'Whether a backend may be used: 0 when its health check found it unhealthy, else 1.', ['service_name', 'backend'], () =>
      healthSnapshot().map(([backend, h]) => ({ values: [serviceName, backend], value: h.healthy ? 1 : 0 })),
    ),
    new CollectedGauge('gateway_backend_health_state', 'The health state of each backend: 1 for the current state, 0 for the others.', ['service_name', 'backend', 'state'], () =>
      healthSnapshot().flatMap(([backend, h]) => HEALTH_STATES.map((state) => ({ values: [serviceName, backend, state], value: h.state === state ? 1 : 0 }))),
    ),
    reloads,
    new CollectedGauge('gateway_config_last_reload_successful', 'Whether the last configuration load or reload was applied (1) or not (0).', ['service_name'], () => (lastReload ? [{ values: [serviceName], value: lastReload.ok ? 1 : 0 }] : [])),
    new CollectedGauge('gateway_config_last_reload_success_timestamp_seconds', 'Unix time of the last applied configuration.', ['service_name'], () =>
      lastReload?.successAt ? [{ values: [serviceName], value: lastReload.successAt }] : [],
    ),
    new CollectedGauge('gateway_build_info', 'Always 1; the labels say which build is running.', ['service_name', 'version', 'nodejs_version'], () => [{ values: [serviceName, version, process.versions.node], value: 1 }]),
    new CollectedGauge('process_resident_memory_bytes', 'Resident memory size in bytes.', [], () => [{ values: [], value: process.memoryUsage.rss() }]),
    new CollectedGauge('process_start_time_seconds', 'Start time of the process since the Unix epoch in seconds.', [], () => [{ values: [], value: Math.round(performance.timeOrigin) / 1000 }]),
    new CollectedGauge('process_cpu_seconds_total', 'User and system CPU time spent in seconds.', [], () => {
      const { user, system } = process.cpuUsage();
      return [{ values: [], value: (user + system) / 1e6 }];
    }, 'counter'),
  ];

  function observeAccess(record: GatewayLogRecord): void {
    const labels = [serviceName, text(record['server']), text(record['api']), text(record['endpoint'])];
    clientRequests.inc([...labels, text(record['method']), text(record['status'])]);
    const seconds = msToSeconds(totalMs(record));
    if (seconds !== null) clientDuration.observe(labels, seconds);
    const errorType = text(record['error_type']);
    if (errorType) clientErrors.inc([...labels, errorType]);
  }

  function observeBackend(record: GatewayLogRecord): void {
    const backend = text(record['backend']);
    const code = typeof record['status'] === 'number' ? String(record['status']) : NO_RESPONSE_CODE;
    if (record['handler'] === HEALTH_CHECK_HANDLER) {
      healthChecks.inc([serviceName, backend, code]);
      return;
    }
    backendRequests.inc([serviceName, backend, code]);
    const seconds = msToSeconds(totalMs(record));
    if (seconds !== null) backendDuration.observe([serviceName, backend], seconds);
    const errorType = text(record['error_type']);
    if (errorType) backendErrors.inc([serviceName, backend, errorType]);
  }

  return {
    get serviceName() {
      return serviceName;
    },
    trackHealth(monitor) {
      health = monitor;
    },
    setServiceName(name) {
      serviceName = name;
    },
    observe(record) {
      if (record.type === 'gateway_access') observeAccess(record);
      else if (record.type === 'gateway_backend') observeBackend(record);
    },
    recordReload(result) {
      for (const r of RELOAD_RESULTS) reloads.touch([serviceName, r]);
      reloads.inc([serviceName, result]);
      lastReload = { ok: result === 'applied', successAt: result === 'applied' ? Date.now() / 1000 : (lastReload?.successAt ?? null) };
    },
    render() {
      return renderExposition(instruments.map((i) => i.snapshot()));
    },
  };
}
