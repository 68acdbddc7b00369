import type { Block } from '../../hcl/index.js';
import type { LoadScope } from './attr-reader.js';
import { invalid } from './build-common.js';
import type { FileChecks } from './file-checks.js';
import { readDevProxyPorts } from './https-dev-proxy.js';
import type { LogLevel, Settings } from './model.js';

export const DEFAULT_SETTINGS: Settings = {
  acceptForwardedUrl: [],
  defaultPort: 8080,
  healthPath: '/healthz',
  httpsDevProxy: [],
  logFormat: 'common',
  logLevel: 'info',
  logPretty: false,
  noProxyFromEnv: false,
  requestIdAcceptFromHeader: '',
  requestIdBackendHeader: 'Gateway-Request-ID',
  requestIdClientHeader: 'Gateway-Request-ID',
  requestIdFormat: 'common',
  secureCookies: '',
  xfh: false,
  betaMetrics: false,
  betaMetricsPort: 9090,
  betaServiceName: 'gateway',
  caFile: null,
};

const LOG_LEVELS: readonly LogLevel[] = ['info', 'panic', 'fatal', 'error', 'warn', 'debug', 'trace'];

/** The merged `settings` block with every default of the spec, values checked against their allowed sets. */
export function buildSettings(block: Block | undefined, scope: LoadScope, files: FileChecks): Settings {
  if (!block) return DEFAULT_SETTINGS;
  const r = scope.reader(block.body, 'settings');
  const d = DEFAULT_SETTINGS;
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const value = r.value<string>(name);
    if (value === undefined) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    invalid(r, scope, name, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(value)}`);
    return fallback;
  };
  const port = (name: string, fallback: number): number => {
    const value = r.value<number>(name);
    if (value === undefined) return fallback;
    if (value >= 0 && value <= 65535) return value;
    invalid(r, scope, name, `a port must be between 0 and 65535, got ${value}`);
    return fallback;
  };
  const acceptForwardedUrl = (r.value<string[]>('accept_forwarded_url') ?? []).filter((v, i, all) => {
    if (v === 'proto' || v === 'host' || v === 'port') return all.indexOf(v) === i;
    invalid(r, scope, 'accept_forwarded_url', `each element must be "proto", "host" or "port", got ${JSON.stringify(v)}`);
    return false;
  }) as ('proto' | 'host' | 'port')[];
  const healthPath = r.value<string>('health_path') ?? d.healthPath;
  if (!healthPath.startsWith('/')) invalid(r, scope, 'health_path', `a path must start with "/", got ${JSON.stringify(healthPath)}`);
  const httpsDevProxy = readDevProxyPorts(r, scope);
  return {
    acceptForwardedUrl,
    defaultPort: port('default_port', d.defaultPort),
    healthPath,
    httpsDevProxy,
    logFormat: oneOf('log_format', ['common', 'json'], d.logFormat),
    logLevel: oneOf('log_level', LOG_LEVELS, d.logLevel),
    logPretty: r.value<boolean>('log_pretty') ?? d.logPretty,
    noProxyFromEnv: r.value<boolean>('no_proxy_from_env') ?? d.noProxyFromEnv,
    requestIdAcceptFromHeader: r.value<string>('request_id_accept_from_header') ?? d.requestIdAcceptFromHeader,
    requestIdBackendHeader: r.value<string>('request_id_backend_header') ?? d.requestIdBackendHeader,
    requestIdClientHeader: r.value<string>('request_id_client_header') ?? d.requestIdClientHeader,
    requestIdFormat: oneOf('request_id_format', ['common', 'uuid4'], d.requestIdFormat),
    secureCookies: oneOf('secure_cookies', ['', 'strip'], d.secureCookies),
    xfh: r.value<boolean>('xfh') ?? d.xfh,
    betaMetrics: r.value<boolean>('beta_metrics') ?? d.betaMetrics,
    betaMetricsPort: port('beta_metrics_port', d.betaMetricsPort),
    betaServiceName: r.value<string>('beta_service_name') ?? d.betaServiceName,
    caFile: files.path(r, 'ca_file', 'pem'),
  };
}
