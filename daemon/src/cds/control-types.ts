// Plain data the control API returns for the cluster discovery service; the consoles import
// these through AppRouter, so no Node types here.

export type CdsHealthStatus = 'UNKNOWN' | 'HEALTHY' | 'UNHEALTHY' | 'DEGRADED';

export interface CdsEndpointView {
  address: string;
  port: number;
  healthStatus: CdsHealthStatus;
}

export interface ClusterView {
  name: string;
  /** The Envoy discovery type: STATIC for an IP-literal origin, STRICT_DNS for a host name. */
  type: 'STATIC' | 'STRICT_DNS';
  origin: string;
  endpoints: CdsEndpointView[];
  /** The endpoint's health (one endpoint per cluster). */
  healthStatus: CdsHealthStatus;
  /** False when the backend has no beta_health block. */
  healthChecked: boolean;
  tls: boolean;
  http2: boolean;
  anonymous: boolean;
  connectTimeoutMs: number;
  /** 0: unlimited. */
  maxConnections: number;
  /** Content hash of the encoded cluster: its delta version. */
  version: string;
}

export interface ClustersList {
  /** The snapshot version (SotW `version_info`). */
  version: string;
  /** ISO time this version first appeared. */
  updatedAt: string;
  /** Where the clusters come from (the gateway's live config, or the files in --mode cds). */
  source: string;
  /** gRPC listen address, e.g. 127.0.0.1:18000. */
  address: string | null;
  clusters: ClusterView[];
  /** Backends that are not clusters: url-only backends have no fixed origin. */
  skipped: string[];
}

export type CdsStreamKind = 'sotw' | 'delta';

export interface CdsAck {
  version: string;
  /** ISO time. */
  at: string;
}

export interface CdsNack extends CdsAck {
  /** google.rpc.Status from the client's error_detail. */
  code: number;
  message: string;
}

/** One open stream: a connected node and what it acknowledged. */
export interface CdsClientView {
  streamId: string;
  /** From the stream's first request; "" when the client sent none. */
  nodeId: string;
  nodeCluster: string;
  kind: CdsStreamKind;
  peer: string;
  /** ISO time the stream opened. */
  connectedAt: string;
  subscriptions: { wildcard: boolean; names: string[] };
  lastVersionSent: string | null;
  lastNonce: string | null;
  lastAck: CdsAck | null;
  lastNack: CdsNack | null;
}

export interface ClustersChange {
  /** What moved: the snapshot (new version) or the clients (connect, ACK, NACK, disconnect). */
  kind: 'snapshot' | 'clients';
  version: string;
  /** Open streams after the change. */
  clients: number;
  at: string;
}
