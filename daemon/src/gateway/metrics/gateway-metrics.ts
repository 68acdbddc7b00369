/**
 * The gateway's metrics: what every access and backend log record says (counts, durations,
 * errors), the reload outcomes, the backends' health read from the HealthMonitor at scrape
 * time, build info and process figures. Rendered in the Prometheus text format.
 */
import type { BackendLogInput } from '../backend/backend-log.js';
import type { GatewayLogRecord, HealthMonitor } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import type { AccessRecordInput } from '../logs/access-record.js';
import { renderExposition, type FamilySnapshot } from './exposition.js';
import { CollectedGauge, Counter, Histogram, keyOf, type Instrument } from './instruments.js';

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
  /** Counts an access record given by its parts (what observe reads of its record). */
  observeAccess(entry: AccessRecordInput): void;
  /** Counts a backend record given by its parts. */
  observeBackend(entry: BackendLogInput): void;
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
  /** Every metric as it stands now. */
  families(): FamilySnapshot[];
  /** The exposition text of every metric. */
  render(): string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value));
const msToSeconds = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value / 1000 : null);
const totalMs = (record: GatewayLogRecord): unknown => (record['timings'] as { total?: unknown } | null | undefined)?.total;

/** Status codes as label values, made once each. */
const STATUS_TEXT: string[] = [];
const statusText = (status: number): string => (Number.isInteger(status) && status >= 0 && status < 1000 ? (STATUS_TEXT[status] ??= String(status)) : String(status));

/** Label values and their series key. */
interface Series {
  readonly values: readonly string[];
  readonly key: string;
}

interface KeptSeries extends Series {
  /** The series of one outcome (method and status, or code) under these labels. */
  outcome(a: string, b: string, values: () => string[]): Series;
}

/** Series kept by up to three label values, found again without building a key (the values are configuration names and small closed sets). */
class SeriesCache {
  readonly #root = new Map<string, Map<string, Map<string, KeptSeries>>>();

  at(a: string, b: string, c: string, values: () => string[]): KeptSeries {
    let byB = this.#root.get(a);
    if (!byB) this.#root.set(a, (byB = new Map()));
    let byC = byB.get(b);
    if (!byC) byB.set(b, (byC = new Map()));
    let kept = byC.get(c);
    if (!kept) byC.set(c, (kept = keptSeries(values())));
    return kept;
  }
}

function keptSeries(values: string[]): KeptSeries {
  const outcomes = new Map<string, Map<string, Series>>();
  return {
    values,
    key: keyOf(values),
    outcome(a, b, make) {
      let byB = outcomes.get(a);
      if (!byB) outcomes.set(a, (byB = new Map()));
      let series = byB.get(b);
      if (!series) {
        const outcomeValues = make();
        byB.set(b, (series = { values: outcomeValues, key: keyOf(outcomeValues) }));
      }
      return series;
    },
  };
}

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

  // The label values of what is counted often, with their keys, kept by route (or backend) and
  // outcome: counting a request builds no array or key. Dropped when the service name changes.
  let routeSeries = new SeriesCache();
  let backendSeries = new SeriesCache();

  // Records and their parts count the same: each is read into these labels and figures.
  function countAccess(server: string, api: string, endpoint: string, method: string, status: string, seconds: number | null, errorType: string): void {
    const route = routeSeries.at(server, api, endpoint, () => [serviceName, server, api, endpoint]);
    const requests = route.outcome(method, status, () => [serviceName, server, api, endpoint, method, status]);
    clientRequests.inc(requests.values, 1, requests.key);
    if (seconds !== null) clientDuration.observe(route.values, seconds, route.key);
    if (errorType) clientErrors.inc([...route.values, errorType]);
  }

  function countBackend(backend: string, status: unknown, handler: unknown, seconds: number | null, errorType: string): void {
    const code = typeof status === 'number' ? statusText(status) : NO_RESPONSE_CODE;
    if (handler === HEALTH_CHECK_HANDLER) {
      healthChecks.inc([serviceName, backend, code]);
      return;
    }
    const series = backendSeries.at(backend, '', '', () => [serviceName, backend]);
    const requests = series.outcome(code, '', () => [serviceName, backend, code]);
    backendRequests.inc(requests.values, 1, requests.key);
    if (seconds !== null) backendDuration.observe(series.values, seconds, series.key);
    if (errorType) backendErrors.inc([serviceName, backend, errorType]);
  }

  function observeAccess(record: GatewayLogRecord): void {
    countAccess(text(record['server']), text(record['api']), text(record['endpoint']), text(record['method']), text(record['status']), msToSeconds(totalMs(record)), text(record['error_type']));
  }

  function observeBackend(record: GatewayLogRecord): void {
    countBackend(text(record['backend']), record['status'], record['handler'], msToSeconds(totalMs(record)), text(record['error_type']));
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
      routeSeries = new SeriesCache();
      backendSeries = new SeriesCache();
    },
    observe(record) {
      if (record.type === 'gateway_access') observeAccess(record);
      else if (record.type === 'gateway_backend') observeBackend(record);
    },
    observeAccess(entry) {
      // The record's duration is rounded to the microsecond before it is counted.
      countAccess(text(entry.server), text(entry.api), text(entry.endpoint), text(entry.method), statusText(entry.status), msToSeconds(Math.round(entry.durationMs * 1000) / 1000), text(entry.errorType));
    },
    observeBackend(entry) {
      const errorType = entry.error instanceof GatewayError ? entry.error.kind : '';
      countBackend(text(entry.backend), entry.status, entry.handler, msToSeconds(entry.timings.total), errorType);
    },
    recordReload(result) {
      for (const r of RELOAD_RESULTS) reloads.touch([serviceName, r]);
      reloads.inc([serviceName, result]);
      lastReload = { ok: result === 'applied', successAt: result === 'applied' ? Date.now() / 1000 : (lastReload?.successAt ?? null) };
    },
    families() {
      return instruments.map((i) => i.snapshot());
    },
    render() {
      return renderExposition(instruments.map((i) => i.snapshot()));
    },
  };
}
