import { describe, expect, it } from 'vitest';
import { formatDuration, fromProtoJson, ProtoJsonError, toProtoJson } from './proto-json.js';
import { CLUSTER_TYPE_URL, loadCdsTypes } from './proto-root.js';

const types = loadCdsTypes();

describe('canonical proto3 JSON', () => {
  it('round-trips a Cluster: durations as strings, wrappers bare, enums by name, Any with @type, Struct plain', () => {
    const json = {
      name: 'api',
      type: 'STRICT_DNS',
      connect_timeout: '0.250s',
      per_connection_buffer_limit_bytes: 1024,
      lb_policy: 'LEAST_REQUEST',
      metadata: { filter_metadata: { portico: { origin: 'http://x', n: 2, list: [true, null], nested: { k: 'v' } } } },
      transport_socket: { name: 'tls', typed_config: { '@type': 'type.googleapis.com/proxy.api.v2.auth.UpstreamTlsContext', sni: 'x.example', max_session_keys: 3 } },
      health_checks: [{ interval: '5s', http_health_check: { path: '/up', expected_statuses: [{ start: '200', end: '300' }] } }],
    };
    const message = fromProtoJson(types.Cluster, json);
    const bytes = types.Cluster.encode(message).finish();
    expect(toProtoJson(types.Cluster, types.Cluster.decode(bytes))).toEqual(json);
  });

  it('accepts camelCase names, enum numbers and integers as strings, and ignores unknown fields', () => {
    const message = fromProtoJson(types.Cluster, { name: 'a', connectTimeout: '1s', lbPolicy: 3, perConnectionBufferLimitBytes: '7', brandNewField: { x: 1 } });
    expect(toProtoJson(types.Cluster, message)).toEqual({ name: 'a', connect_timeout: '1s', lb_policy: 'RANDOM', per_connection_buffer_limit_bytes: 7 });
    // Keys every object inherits are unknown fields like any other.
    const inherited = fromProtoJson(types.DiscoveryRequest, { constructor: 'x', toString: [], node: { valueOf: {} }, ...JSON.parse('{"__proto__": {"a": 1}}') });
    expect(toProtoJson(types.DiscoveryRequest, inherited)).toEqual({ node: {} });
  });

  it('wraps a DiscoveryResponse resource as an Any with @type', () => {
    const response = fromProtoJson(types.DiscoveryResponse, { version_info: 'v', resources: [{ '@type': CLUSTER_TYPE_URL, name: 'a' }] });
    expect(toProtoJson(types.DiscoveryResponse, types.DiscoveryResponse.decode(types.DiscoveryResponse.encode(response).finish()))).toEqual({ version_info: 'v', resources: [{ '@type': CLUSTER_TYPE_URL, name: 'a' }] });
  });

  it('names the field and the problem for wrong types', () => {
    const problem = (json: unknown): string => {
      try {
        fromProtoJson(types.Cluster, json);
      } catch (error) {
        if (error instanceof ProtoJsonError) return error.message;
      }
      return 'no error';
    };
    expect(problem({ connect_timeout: 5 })).toBe('connect_timeout: expected a duration such as "1.5s", got number 5');
    expect(problem({ lb_policy: 'FASTEST' })).toContain('lb_policy: expected one of ROUND_ROBIN');
    expect(problem({ lb_policy: 'constructor' })).toContain('lb_policy: expected one of ROUND_ROBIN');
    expect(problem({ health_checks: {} })).toBe('health_checks: expected a JSON array, got an object');
    expect(problem({ per_connection_buffer_limit_bytes: -1 })).toBe('per_connection_buffer_limit_bytes: -1 is out of range for uint32');
    expect(problem({ transport_socket: { typed_config: { '@type': 'type.googleapis.com/nope.Missing' } } })).toContain('unknown Any type');
    expect(problem({ type: 'STATIC', cluster_type: { name: 'x' } })).toContain('only one of type and cluster_type');
  });

  it('writes durations with 0, 3, 6 or 9 fractional digits', () => {
    expect([formatDuration(1, 0), formatDuration(0, 500_000_000), formatDuration(2, 1_000), formatDuration(0, 1), formatDuration(-1, -500_000_000)]).toEqual(['1s', '0.500s', '2.000001s', '0.000000001s', '-1.500s']);
  });
});
