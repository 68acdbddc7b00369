import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { clusterInputs } from './catalog.js';
import { loadCdsTypes } from './proto-root.js';
import { buildSnapshot } from './snapshot.js';
import { backendsHcl, loadConfig } from './testing/cds-fixture.js';
import { encodeDeltaResponse, encodeSotwBody, withNonce } from './wire.js';

/**
 * Envoy's v2 definitions written by hand with protobufjs reflection, straight from
 * ../shared/reference/xds-v2-field-numbers.txt under Envoy's own package names — nothing
 * shared with protos/ but the well-known types.
 */
function envoyRoot(): protobuf.Root {
  const { Root, Type, Field, Enum, MapField, OneOf } = protobuf;
  const root = new Root().loadSync(['google/protobuf/any.proto', 'google/protobuf/duration.proto', 'google/protobuf/wrappers.proto', 'google/protobuf/struct.proto']);
  const core = root.define('envoy.api.v2.core');
  core.add(new Enum('HealthStatus', { UNKNOWN: 0, HEALTHY: 1, UNHEALTHY: 2, DRAINING: 3, TIMEOUT: 4, DEGRADED: 5 }));
  core.add(new Type('SocketAddress').add(new Field('address', 2, 'string')).add(new Field('port_value', 3, 'uint32')));
  core.add(new Type('Address').add(new Field('socket_address', 1, 'SocketAddress')));
  core.add(new Type('Node').add(new Field('id', 1, 'string')).add(new Field('cluster', 2, 'string')));
  core.add(new Type('Metadata').add(new MapField('filter_metadata', 1, 'string', 'google.protobuf.Struct')));
  core.add(new Type('TransportSocket').add(new Field('name', 1, 'string')).add(new Field('typed_config', 3, 'google.protobuf.Any')));
  core.add(new Type('ControlPlane').add(new Field('identifier', 1, 'string')));
  core.add(new Type('Http2ProtocolOptions').add(new Field('hpack_table_size', 1, 'google.protobuf.UInt32Value')));
  const hc = new Type('HealthCheck')
    .add(new Field('timeout', 1, 'google.protobuf.Duration'))
    .add(new Field('interval', 2, 'google.protobuf.Duration'))
    .add(new Field('unhealthy_threshold', 4, 'google.protobuf.UInt32Value'))
    .add(new Field('healthy_threshold', 5, 'google.protobuf.UInt32Value'))
    .add(new Field('http_health_check', 8, 'HttpHealthCheck'));
  hc.add(new Type('HttpHealthCheck').add(new Field('host', 1, 'string')).add(new Field('path', 2, 'string')).add(new Field('expected_statuses', 9, 'envoy.type.Int64Range', 'repeated')));
  core.add(hc);
  root.define('envoy.type').add(new Type('Int64Range').add(new Field('start', 1, 'int64')).add(new Field('end', 2, 'int64')));
  const ep = root.define('envoy.api.v2.endpoint');
  ep.add(new Type('Endpoint').add(new Field('address', 1, 'envoy.api.v2.core.Address')));
  ep.add(new Type('LbEndpoint').add(new Field('endpoint', 1, 'Endpoint')).add(new Field('health_status', 2, 'envoy.api.v2.core.HealthStatus')));
  ep.add(new Type('LocalityLbEndpoints').add(new Field('lb_endpoints', 2, 'LbEndpoint', 'repeated')));
  const cb = root.define('envoy.api.v2.cluster');
  const th = new Type('Thresholds').add(new Field('max_connections', 2, 'google.protobuf.UInt32Value'));
  cb.add(new Type('CircuitBreakers').add(new Field('thresholds', 1, 'Thresholds', 'repeated')).add(th));
  const auth = root.define('envoy.api.v2.auth');
  auth.add(new Type('DataSource').add(new Field('filename', 1, 'string')));
  auth.add(new Type('CertificateValidationContext').add(new Field('trusted_ca', 1, 'DataSource')));
  auth.add(new Type('CommonTlsContext').add(new Field('validation_context', 3, 'CertificateValidationContext')).add(new Field('alpn_protocols', 4, 'string', 'repeated')));
  auth.add(new Type('UpstreamTlsContext').add(new Field('common_tls_context', 1, 'CommonTlsContext')).add(new Field('sni', 2, 'string')));
  const v2 = root.define('envoy.api.v2');
  v2.add(new Type('ClusterLoadAssignment').add(new Field('cluster_name', 1, 'string')).add(new Field('endpoints', 2, 'envoy.api.v2.endpoint.LocalityLbEndpoints', 'repeated')));
  const cluster = new Type('Cluster')
    .add(new Field('name', 1, 'string'))
    .add(new Field('type', 2, 'DiscoveryType'))
    .add(new Field('connect_timeout', 4, 'google.protobuf.Duration'))
    .add(new Field('lb_policy', 6, 'LbPolicy'))
    .add(new Field('health_checks', 8, 'envoy.api.v2.core.HealthCheck', 'repeated'))
    .add(new Field('circuit_breakers', 10, 'envoy.api.v2.cluster.CircuitBreakers'))
    .add(new Field('http2_protocol_options', 14, 'envoy.api.v2.core.Http2ProtocolOptions'))
    .add(new Field('dns_lookup_family', 17, 'DnsLookupFamily'))
    .add(new Field('transport_socket', 24, 'envoy.api.v2.core.TransportSocket'))
    .add(new Field('metadata', 25, 'envoy.api.v2.core.Metadata'))
    .add(new Field('load_assignment', 33, 'ClusterLoadAssignment'));
  cluster.add(new OneOf('cluster_discovery_type', ['type']));
  cluster.add(new Enum('DiscoveryType', { STATIC: 0, STRICT_DNS: 1, LOGICAL_DNS: 2, EDS: 3, ORIGINAL_DST: 4 }));
  cluster.add(new Enum('LbPolicy', { ROUND_ROBIN: 0, LEAST_REQUEST: 1 }));
  cluster.add(new Enum('DnsLookupFamily', { AUTO: 0, V4_ONLY: 1, V6_ONLY: 2 }));
  v2.add(cluster);
  v2.add(new Type('Status').add(new Field('code', 1, 'int32')).add(new Field('message', 2, 'string')));
  v2.add(
    new Type('DiscoveryRequest')
      .add(new Field('version_info', 1, 'string'))
      .add(new Field('node', 2, 'envoy.api.v2.core.Node'))
      .add(new Field('resource_names', 3, 'string', 'repeated'))
      .add(new Field('type_url', 4, 'string'))
      .add(new Field('response_nonce', 5, 'string'))
      .add(new Field('error_detail', 6, 'Status')),
  );
  v2.add(
    new Type('DiscoveryResponse')
      .add(new Field('version_info', 1, 'string'))
      .add(new Field('resources', 2, 'google.protobuf.Any', 'repeated'))
      .add(new Field('canary', 3, 'bool'))
      .add(new Field('type_url', 4, 'string'))
      .add(new Field('nonce', 5, 'string'))
      .add(new Field('control_plane', 6, 'envoy.api.v2.core.ControlPlane')),
  );
  v2.add(new Type('Resource').add(new Field('version', 1, 'string')).add(new Field('resource', 2, 'google.protobuf.Any')).add(new Field('name', 3, 'string')));
  v2.add(
    new Type('DeltaDiscoveryResponse')
      .add(new Field('system_version_info', 1, 'string'))
      .add(new Field('resources', 2, 'Resource', 'repeated'))
      .add(new Field('type_url', 4, 'string'))
      .add(new Field('nonce', 5, 'string'))
      .add(new Field('removed_resources', 6, 'string', 'repeated')),
  );
  v2.add(
    new Type('DeltaDiscoveryRequest')
      .add(new Field('node', 1, 'envoy.api.v2.core.Node'))
      .add(new Field('resource_names_subscribe', 3, 'string', 'repeated'))
      .add(new MapField('initial_resource_versions', 5, 'string', 'string'))
      .add(new Field('response_nonce', 6, 'string')),
  );
  root.resolveAll();
  return root;
}

const HCL = `definitions {
  backend "secure" {
    origin = "https://api.example.com:8443"
    connect_timeout = "3s"
    max_connections = 9
    http2 = true
    beta_health {
      path = "/up"
      expected_status = [200, 201]
    }
  }
}
server {
  endpoint "/" {
    response { body = "ok" }
  }
}`;

const opts = { enums: String, longs: String, defaults: false };

describe('wire compatibility with Envoy v2 definitions', () => {
  it('a Cluster we encode decodes field for field with an independent Envoy definition', async () => {
    const ours = loadCdsTypes();
    const envoy = envoyRoot();
    const snapshot = buildSnapshot(ours, clusterInputs(await loadConfig(HCL), { secure: { state: 'healthy', healthy: true, error: '', lastCheckAt: null, failures: 0, latencyMs: null, since: '', checked: true } }));
    const body = withNonce(encodeSotwBody(snapshot.version, snapshot.resources), 'n-1');
    const DiscoveryResponse = envoy.lookupType('envoy.api.v2.DiscoveryResponse');
    const response = DiscoveryResponse.toObject(DiscoveryResponse.decode(body), opts) as { version_info: string; nonce: string; type_url: string; control_plane: { identifier: string }; resources: { type_url: string; value: Uint8Array }[] };
    expect(response).toMatchObject({ version_info: snapshot.version, nonce: 'n-1', type_url: 'type.googleapis.com/proxy.api.v2.Cluster', control_plane: { identifier: 'portico' } });
    const Cluster = envoy.lookupType('envoy.api.v2.Cluster');
    const cluster = Cluster.toObject(Cluster.decode(response.resources[0]!.value), opts) as Record<string, unknown>;
    expect(cluster).toMatchObject({
      name: 'secure',
      type: 'STRICT_DNS',
      connect_timeout: { seconds: '3' },
      circuit_breakers: { thresholds: [{ max_connections: { value: 9 } }] },
      http2_protocol_options: {},
      health_checks: [{ healthy_threshold: { value: 1 }, http_health_check: { path: '/up', host: 'api.example.com', expected_statuses: [{ start: '200', end: '202' }] } }],
      load_assignment: { cluster_name: 'secure', endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: 'api.example.com', port_value: 8443 } } }, health_status: 'HEALTHY' }] }] },
      transport_socket: { name: 'envoy.transport_sockets.tls', typed_config: { type_url: 'type.googleapis.com/proxy.api.v2.auth.UpstreamTlsContext' } },
    });
    expect(cluster['metadata']).toMatchObject({ filter_metadata: { portico: { fields: { origin: { stringValue: 'https://api.example.com:8443' }, anonymous: { boolValue: false } } } } });
    const Tls = envoy.lookupType('envoy.api.v2.auth.UpstreamTlsContext');
    const tlsBytes = (cluster['transport_socket'] as { typed_config: { value: Uint8Array } }).typed_config.value;
    expect(Tls.toObject(Tls.decode(tlsBytes), opts)).toEqual({ sni: 'api.example.com', common_tls_context: { alpn_protocols: ['h2', 'http/1.1'], validation_context: {} } });
  });

  it('a delta response we encode decodes with the Envoy definition', async () => {
    const ours = loadCdsTypes();
    const envoy = envoyRoot();
    const snapshot = buildSnapshot(ours, clusterInputs(await loadConfig(HCL), null));
    const Delta = envoy.lookupType('envoy.api.v2.DeltaDiscoveryResponse');
    const decoded = Delta.toObject(Delta.decode(encodeDeltaResponse(snapshot.version, snapshot.resources, ['gone'], 'n-2')), opts);
    expect(decoded).toMatchObject({ system_version_info: snapshot.version, nonce: 'n-2', removed_resources: ['gone'], resources: [{ name: 'secure', version: snapshot.resources[0]!.version }] });
  });

  it('requests encoded with the Envoy definition decode with ours', () => {
    const ours = loadCdsTypes();
    const envoy = envoyRoot();
    const Req = envoy.lookupType('envoy.api.v2.DiscoveryRequest');
    const bytes = Req.encode(Req.fromObject({ version_info: 'v1', node: { id: 'n', cluster: 'c' }, resource_names: ['a'], type_url: 't', response_nonce: 'x', error_detail: { code: 13, message: 'bad' } })).finish();
    expect(ours.DiscoveryRequest.toObject(ours.DiscoveryRequest.decode(bytes))).toEqual({ version_info: 'v1', node: { id: 'n', cluster: 'c' }, resource_names: ['a'], type_url: 't', response_nonce: 'x', error_detail: { code: 13, message: 'bad' } });
    const Delta = envoy.lookupType('envoy.api.v2.DeltaDiscoveryRequest');
    const delta = Delta.encode(Delta.fromObject({ node: { id: 'n' }, resource_names_subscribe: ['*'], initial_resource_versions: { a: 'h1' }, response_nonce: 'z' })).finish();
    expect(ours.DeltaDiscoveryRequest.toObject(ours.DeltaDiscoveryRequest.decode(delta))).toEqual({ node: { id: 'n' }, resource_names_subscribe: ['*'], initial_resource_versions: { a: 'h1' }, response_nonce: 'z' });
  });
});
