import { isIP } from 'node:net';
import type { BackendHealth } from '../gateway/contracts.js';
import type { BackendConfig, HealthConfig } from '../gateway/config/model.js';
import type { CdsTypes } from './proto-root.js';
import { UPSTREAM_TLS_TYPE_URL } from './proto-root.js';

/**
 * The fields of a backend a cluster is built from. `mapCluster` sees only these, and
 * `clusterKey` covers each of them, so equal keys always mean equal clusters.
 */
export type ClusterBackend = Pick<
  BackendConfig,
  'name' | 'origin' | 'anonymous' | 'useWhenUnhealthy' | 'connectTimeout' | 'hostname' | 'maxConnections' | 'http2' | 'caFile' | 'disableCertificateValidation' | 'health'
>;

/** What one cluster is built from: a backend of the active config and its live health. */
export interface ClusterInput {
  readonly backend: ClusterBackend;
  readonly health: BackendHealth['state'];
  /** `settings.ca_file` of the config, used when the backend has no ca_file of its own. */
  readonly defaultCaFile: string | null;
}

export type EndpointHealthStatus = 'UNKNOWN' | 'HEALTHY' | 'UNHEALTHY' | 'DEGRADED';

/** The parts of a cluster the consoles show, alongside its proto form. */
export interface ClusterSummary {
  readonly name: string;
  readonly type: 'STATIC' | 'STRICT_DNS';
  readonly origin: string;
  readonly address: string;
  readonly port: number;
  readonly tls: boolean;
  readonly http2: boolean;
  readonly healthStatus: EndpointHealthStatus;
  readonly healthChecked: boolean;
  readonly anonymous: boolean;
  readonly connectTimeoutMs: number;
  readonly maxConnections: number;
}

/** A cluster in the protobufjs `fromObject` form (proto field names), plus its summary. */
export interface MappedCluster {
  readonly summary: ClusterSummary;
  readonly proto: Record<string, unknown>;
}

const HEALTH_STATUS: Record<BackendHealth['state'], EndpointHealthStatus> = {
  unknown: 'UNKNOWN',
  healthy: 'HEALTHY',
  degraded: 'DEGRADED',
  unhealthy: 'UNHEALTHY',
};

export const TLS_TRANSPORT_SOCKET = 'envoy.transport_sockets.tls';

/**
 * Everything `mapCluster` reads from an input, as one string: a reload finds an unchanged
 * cluster's encoding by it without mapping the backend again. Health-check headers are left
 * out (never published, and they may carry credentials).
 */
export function clusterKey(input: ClusterInput): string {
  const b = input.backend;
  const h = b.health;
  return JSON.stringify([
    b.name,
    b.origin,
    b.anonymous,
    b.useWhenUnhealthy,
    b.connectTimeout,
    staticText(b.hostname),
    b.maxConnections,
    b.http2,
    b.caFile,
    b.disableCertificateValidation,
    h && [h.timeout, h.interval, h.failureThreshold, h.path, h.expectedStatus],
    input.health,
    input.defaultCaFile,
  ]);
}

/**
 * A backend as an Envoy v2 Cluster: the label is the name; an IP-literal origin is STATIC,
 * a host name STRICT_DNS; both carry the origin as their one endpoint with the live health.
 * Returns null for a url-only backend (origin null): it has no fixed address to publish.
 */
export function mapCluster(types: CdsTypes, input: ClusterInput): MappedCluster | null {
  const { backend } = input;
  if (backend.origin === null) return null;
  const url = new URL(backend.origin);
  const tls = url.protocol === 'https:';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port ? Number(url.port) : tls ? 443 : 80;
  const isStatic = isIP(host) !== 0;
  const healthStatus = HEALTH_STATUS[input.health];

  const proto: Record<string, unknown> = {
    name: backend.name,
    type: isStatic ? 'STATIC' : 'STRICT_DNS',
    connect_timeout: duration(backend.connectTimeout),
    lb_policy: 'ROUND_ROBIN',
    dns_lookup_family: 'AUTO',
    load_assignment: {
      cluster_name: backend.name,
      endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: host, port_value: port } } }, health_status: healthStatus }] }],
    },
    metadata: {
      filter_metadata: {
        portico: { fields: { origin: str(backend.origin), anonymous: bool(backend.anonymous), use_when_unhealthy: bool(backend.useWhenUnhealthy) } },
      },
    },
  };
  if (backend.health) proto['health_checks'] = [healthCheck(backend.health, staticText(backend.hostname) ?? host)];
  if (backend.maxConnections > 0) proto['circuit_breakers'] = { thresholds: [{ priority: 'DEFAULT', max_connections: { value: backend.maxConnections } }] };
  if (backend.http2) proto['http2_protocol_options'] = {};
  if (tls) proto['transport_socket'] = transportSocket(types, input, staticText(backend.hostname) ?? host, isStatic && !staticText(backend.hostname));

  return {
    proto,
    summary: {
      name: backend.name,
      type: isStatic ? 'STATIC' : 'STRICT_DNS',
      origin: backend.origin,
      address: host,
      port,
      tls,
      http2: backend.http2,
      healthStatus,
      healthChecked: backend.health !== null,
      anonymous: backend.anonymous,
      connectTimeoutMs: backend.connectTimeout,
      maxConnections: backend.maxConnections,
    },
  };
}

/** TLS to the origin: SNI from `hostname` (else the origin host), validation unless disabled, the CA file when set. */
function transportSocket(types: CdsTypes, input: ClusterInput, sniHost: string, sniIsIp: boolean): Record<string, unknown> {
  const { backend } = input;
  const caFile = backend.caFile ?? input.defaultCaFile;
  const common: Record<string, unknown> = { alpn_protocols: backend.http2 ? ['h2', 'http/1.1'] : ['http/1.1'] };
  if (!backend.disableCertificateValidation) common['validation_context'] = caFile ? { trusted_ca: { filename: caFile } } : {};
  const context = types.UpstreamTlsContext.fromObject({ common_tls_context: common, ...(sniIsIp ? {} : { sni: sniHost }) });
  return {
    name: TLS_TRANSPORT_SOCKET,
    typed_config: { type_url: UPSTREAM_TLS_TYPE_URL, value: types.UpstreamTlsContext.encode(context).finish() },
  };
}

/**
 * beta_health as an HTTP health check: failure_threshold failures make the host unhealthy,
 * one success heals it (the gateway's rule); expected statuses as [start, end) ranges.
 * Health-check headers are not published: they may carry credentials.
 */
function healthCheck(health: HealthConfig, host: string): Record<string, unknown> {
  return {
    timeout: duration(health.timeout),
    interval: duration(health.interval),
    unhealthy_threshold: { value: Math.max(1, health.failureThreshold) },
    healthy_threshold: { value: 1 },
    http_health_check: {
      host,
      path: health.path ?? '/',
      expected_statuses: statusRanges(health.expectedStatus).map(([start, end]) => ({ start, end })),
    },
  };
}

/** Sorted, de-duplicated statuses folded into half-open ranges: [200, 204] -> [[200,201],[204,205]]. */
export function statusRanges(statuses: readonly number[]): [number, number][] {
  const sorted = [...new Set(statuses)].sort((a, b) => a - b);
  const ranges: [number, number][] = [];
  for (const status of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === status) last[1] = status + 1;
    else ranges.push([status, status + 1]);
  }
  return ranges;
}

function duration(ms: number): { seconds: number; nanos: number } {
  return { seconds: Math.floor(ms / 1000), nanos: Math.round((ms % 1000) * 1_000_000) };
}

function staticText(value: ClusterBackend['hostname']): string | null {
  return value?.kind === 'static' && value.value !== '' ? value.value : null;
}

// protobufjs's bundled google.protobuf.Value has camelCase field names.
const str = (value: string): Record<string, unknown> => ({ stringValue: value });
const bool = (value: boolean): Record<string, unknown> => ({ boolValue: value });
