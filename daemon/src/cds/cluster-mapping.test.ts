import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterInputs } from './catalog.js';
import { type ClusterBackend, type ClusterInput, clusterKey, mapCluster, statusRanges } from './cluster-mapping.js';
import type { HealthConfig } from '../gateway/config/model.js';
import type { ReusableBackends } from '../gateway/config/backend-reuse.js';
import { loadGatewayConfig } from '../gateway/config/load.js';
import { loadCdsTypes, UPSTREAM_TLS_TYPE_URL } from './proto-root.js';
import { buildSnapshot, ClusterEncodings } from './snapshot.js';
import { configFile, decodeCluster, loadConfig } from './testing/cds-fixture.js';

const types = loadCdsTypes();

async function clustersOf(hcl: string, health: Record<string, 'unknown' | 'healthy' | 'degraded' | 'unhealthy'> = {}) {
  const config = await loadConfig(hcl);
  const states = Object.fromEntries(Object.entries(health).map(([k, state]) => [k, { state, healthy: state !== 'unhealthy', error: '', lastCheckAt: null, failures: 0, latencyMs: null, since: '', checked: true }]));
  const snapshot = buildSnapshot(types, clusterInputs(config, states));
  const decoded = Object.fromEntries(snapshot.resources.map((r) => {
    const any = types.root.lookupType('google.protobuf.Any').decode(r.any) as unknown as { value: Uint8Array };
    return [r.name, decodeCluster(any.value)];
  }));
  return { snapshot, decoded };
}

describe('backends as clusters', () => {
  it('maps an IP origin to STATIC with its address, timeouts, limits, http2 and metadata', async () => {
    const { decoded } = await clustersOf(`definitions {
  backend "api" {
    origin = "http://10.1.2.3:8080"
    connect_timeout = "2.5s"
    max_connections = 50
    http2 = true
    use_when_unhealthy = true
  }
}
server {
  endpoint "/" {
    response { body = "ok" }
  }
}`);
    expect(decoded['api']).toMatchObject({
      name: 'api',
      type: 'STATIC',
      connect_timeout: { seconds: '2', nanos: 500_000_000 },
      circuit_breakers: { thresholds: [{ max_connections: { value: 50 } }] },
      http2_protocol_options: {},
      load_assignment: {
        cluster_name: 'api',
        endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: '10.1.2.3', port_value: 8080 } } } }] }],
      },
      metadata: { filter_metadata: { portico: { fields: { origin: { stringValue: 'http://10.1.2.3:8080' }, anonymous: { boolValue: false }, use_when_unhealthy: { boolValue: true } } } } },
    });
    expect(decoded['api']?.['transport_socket']).toBeUndefined();
  });

  it('maps a host name to STRICT_DNS and https to an UpstreamTlsContext with SNI and the CA file', async () => {
    const file = configFile('');
    const ca = join(file.path, '..', 'ca.pem');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\n');
    const { decoded } = await clustersOf(`definitions {
  backend "secure" {
    origin = "https://api.example.com"
    hostname = "virtual.example.com"
    ca_file = "${ca}"
  }
  backend "lax" {
    origin = "https://10.0.0.8:8443"
    disable_certificate_validation = true
  }
}
server {
  endpoint "/" {
    response { body = "ok" }
  }
}`);
    expect(decoded['secure']).toMatchObject({ type: 'STRICT_DNS', load_assignment: { endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: 'api.example.com', port_value: 443 } } } }] }] } });
    const socket = decoded['secure']?.['transport_socket'] as { name: string; typed_config: { type_url: string; value: Uint8Array } };
    expect(socket.name).toBe('envoy.transport_sockets.tls');
    expect(socket.typed_config.type_url).toBe(UPSTREAM_TLS_TYPE_URL);
    const tls = types.UpstreamTlsContext.toObject(types.UpstreamTlsContext.decode(socket.typed_config.value));
    expect(tls).toEqual({ sni: 'virtual.example.com', common_tls_context: { alpn_protocols: ['http/1.1'], validation_context: { trusted_ca: { filename: ca } } } });

    const lax = decoded['lax']?.['transport_socket'] as { typed_config: { value: Uint8Array } };
    expect(types.UpstreamTlsContext.toObject(types.UpstreamTlsContext.decode(lax.typed_config.value))).toEqual({ common_tls_context: { alpn_protocols: ['http/1.1'] } });
    expect(decoded['lax']).toMatchObject({ type: 'STATIC' });
  });

  it('maps beta_health to an HTTP health check and the live health to the endpoint status', async () => {
    const { decoded, snapshot } = await clustersOf(
      `definitions {
  backend "checked" {
    origin = "http://10.0.0.1"
    beta_health {
      path = "/healthz"
      interval = "5s"
      timeout = "500ms"
      failure_threshold = 3
      expected_status = [200, 204, 201]
    }
  }
  backend "down" {
    origin = "http://10.0.0.2"
  }
  backend "fresh" {
    origin = "http://10.0.0.3"
  }
}
server {
  endpoint "/" {
    response { body = "ok" }
  }
}`,
      { checked: 'degraded', down: 'unhealthy' },
    );
    expect(decoded['checked']?.['health_checks']).toEqual([
      {
        timeout: { seconds: '0', nanos: 500_000_000 },
        interval: { seconds: '5', nanos: 0 },
        health_checker: 'http_health_check',
        unhealthy_threshold: { value: 3 },
        healthy_threshold: { value: 1 },
        http_health_check: { host: '10.0.0.1', path: '/healthz', expected_statuses: [{ start: '200', end: '202' }, { start: '204', end: '205' }] },
      },
    ]);
    const status = (name: string) => (decoded[name]?.['load_assignment'] as { endpoints: { lb_endpoints: { health_status?: string }[] }[] }).endpoints[0]?.lb_endpoints[0]?.health_status ?? 'UNKNOWN';
    expect([status('checked'), status('down'), status('fresh')]).toEqual(['DEGRADED', 'UNHEALTHY', 'UNKNOWN']);
    expect(snapshot.byName.get('down')?.summary.healthStatus).toBe('UNHEALTHY');
  });

  it('skips a backend whose origin is known only per request', async () => {
    const { snapshot } = await clustersOf(`server {
  endpoint "/" {
    proxy {
      url = "http://\${request.headers.host}/x"
    }
  }
  endpoint "/b" {
    proxy {
      url = "http://10.0.0.9/b"
    }
  }
}`);
    expect(snapshot.resources).toHaveLength(1);
    expect(snapshot.resources[0]?.summary.anonymous).toBe(true);
    expect(snapshot.skipped).toHaveLength(1);
    expect(snapshot.skipped[0]).toMatch(/^anonymous_/);
  });

  it('folds expected statuses into half-open ranges', () => {
    expect(statusRanges([204, 200, 201, 200, 500])).toEqual([[200, 202], [204, 205], [500, 501]]);
  });

  it('re-encodes only the clusters a reload changed, and gives the same versions as a build from scratch', async () => {
    const hcl = (timeout: string): string =>
      `definitions {\n  backend "a" {\n    origin = "http://10.0.0.1:80"\n  }\n  backend "b" {\n    origin = "http://10.0.0.2:80"\n    connect_timeout = "${timeout}"\n  }\n}\nserver {\n  endpoint "/" {\n    response { body = "ok" }\n  }\n}\n`;
    const encodings = new ClusterEncodings();
    const first = buildSnapshot(types, clusterInputs(await loadConfig(hcl('5s')), null), new Date(), encodings);
    const second = buildSnapshot(types, clusterInputs(await loadConfig(hcl('7s')), null), new Date(), encodings);
    const fresh = buildSnapshot(types, clusterInputs(await loadConfig(hcl('7s')), null));
    expect(second.byName.get('a')!.any).toBe(first.byName.get('a')!.any);
    expect(second.byName.get('b')!.any).not.toBe(first.byName.get('b')!.any);
    expect(second.byName.get('b')!.version).not.toBe(first.byName.get('b')!.version);
    expect(second.resources.map((r) => [r.name, r.version, Buffer.from(r.any).toString('hex')])).toEqual(fresh.resources.map((r) => [r.name, r.version, Buffer.from(r.any).toString('hex')]));
    expect(second.version).toBe(fresh.version);
  });

  it('shares the encoding of a backend taken at a moved block (a copy differing in its range); versions as a fresh build', async () => {
    const hcl = (above: string, timeout: string): string =>
      `${above}definitions {\n  backend "a" {\n    origin = "http://10.0.0.1:80"\n    connect_timeout = "${timeout}"\n  }\n  backend "b" {\n    origin = "http://10.0.0.2:80"\n  }\n}\nserver {\n  endpoint "/" {\n    response { body = "ok" }\n  }\n}\n`;
    const file = '/virtual/cds-moved.hcl';
    const load = (text: string, reuse?: ReusableBackends) => loadGatewayConfig([file], {}, { texts: new Map([[file, text]]), reuse });
    const encodings = new ClusterEncodings();
    const before = await load(hcl('', '5s'));
    const first = buildSnapshot(types, clusterInputs(before.config!, null), new Date(), encodings);
    // "a" grows by a character: "b" after it moves one byte, a line comment above moves both a line.
    for (const [above, timeout] of [['', '10s'], ['# moved\n', '10s']] as const) {
      const after = await load(hcl(above, timeout), before.reusable);
      expect(after.config!.backends['b']).not.toBe(before.config!.backends['b']);
      const second = buildSnapshot(types, clusterInputs(after.config!, null), new Date(), encodings);
      expect(second.byName.get('b')).toBe(first.byName.get('b'));
      const fresh = buildSnapshot(types, clusterInputs((await load(hcl(above, timeout))).config!, null));
      expect(second.resources.map((r) => [r.name, r.version])).toEqual(fresh.resources.map((r) => [r.name, r.version]));
      expect(second.version).toBe(fresh.version);
    }
  });

  it('keeps the key of a frozen backend object, and still follows its health and the default CA file', () => {
    const backend = Object.freeze({ name: 'api', origin: 'https://api.example.com', anonymous: false, useWhenUnhealthy: false, connectTimeout: 10_000, hostname: null, maxConnections: 0, http2: false, caFile: null, disableCertificateValidation: false, health: null });
    const encodings = new ClusterEncodings();
    const input = (health: ClusterInput['health'], defaultCaFile: string | null): ClusterInput[] => [{ backend, health, defaultCaFile }];
    const first = buildSnapshot(types, input('unknown', null), new Date(), encodings);
    const same = buildSnapshot(types, input('unknown', null), new Date(), encodings);
    expect(same.byName.get('api')!.any).toBe(first.byName.get('api')!.any);
    // The resource itself is shared: an unchanged backend costs a snapshot no new object.
    expect(same.byName.get('api')).toBe(first.byName.get('api'));
    for (const [health, caFile] of [['unhealthy', null], ['unknown', '/etc/ssl/ca.pem']] as const) {
      const changed = buildSnapshot(types, input(health, caFile), new Date(), encodings);
      const fresh = buildSnapshot(types, input(health, caFile));
      expect(changed.byName.get('api')!.version).not.toBe(first.byName.get('api')!.version);
      expect(changed.version).toBe(fresh.version);
    }
    const back = buildSnapshot(types, input('unknown', null), new Date(), encodings);
    expect([back.version, back.byName.get('api')!.version]).toEqual([first.version, first.byName.get('api')!.version]);
  });

  describe('the key that finds an unchanged cluster', () => {
    const health: HealthConfig = { expectedStatus: [200], expectedText: null, failureThreshold: 2, headers: {}, interval: 10_000, path: '/healthz', timeout: 2_000 };
    const backend: ClusterBackend = {
      name: 'api',
      origin: 'https://api.example.com',
      anonymous: false,
      useWhenUnhealthy: false,
      connectTimeout: 10_000,
      hostname: null,
      maxConnections: 0,
      http2: false,
      caFile: null,
      disableCertificateValidation: false,
      health,
    };
    const base: ClusterInput = { backend, health: 'unknown', defaultCaFile: null };
    const form = (input: ClusterInput): string => {
      const mapped = mapCluster(types, input);
      return JSON.stringify(mapped, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('hex') : value));
    };
    // One changed value per field mapCluster can see: the Record makes a new field of
    // ClusterBackend fail to compile here until it has a variant, so the key cannot miss it.
    const backendVariants: { [K in keyof ClusterBackend]-?: ClusterBackend[K] } = {
      name: 'other',
      origin: 'https://api.example.com:8443',
      anonymous: true,
      useWhenUnhealthy: true,
      connectTimeout: 2_500,
      hostname: { kind: 'static', value: 'sni.example.com' },
      maxConnections: 10,
      http2: true,
      caFile: '/etc/ssl/ca.pem',
      disableCertificateValidation: true,
      health: null,
    };
    const healthVariants: { [K in keyof HealthConfig]-?: HealthConfig[K] } = {
      expectedStatus: [200, 204],
      expectedText: 'ok',
      failureThreshold: 5,
      headers: { authorization: 'Bearer secret' },
      interval: 30_000,
      path: '/ready',
      timeout: 1_000,
    };
    const variants: [string, ClusterInput][] = [
      ...Object.entries(backendVariants).map(([field, value]): [string, ClusterInput] => [field, { ...base, backend: { ...backend, [field]: value } }]),
      ...Object.entries(healthVariants).map(([field, value]): [string, ClusterInput] => [`health.${field}`, { ...base, backend: { ...backend, health: { ...health, [field]: value } } }]),
      ['input.health', { ...base, health: 'unhealthy' }],
      ['input.defaultCaFile', { ...base, defaultCaFile: '/etc/ssl/default.pem' }],
    ];

    it.each(variants)('a different %s gives a different key exactly when the cluster differs', (_field, variant) => {
      expect(clusterKey(variant) !== clusterKey(base)).toBe(form(variant) !== form(base));
    });

    it('health-check headers (never published, possibly credentials) are not part of the key', () => {
      const variant = { ...base, backend: { ...backend, health: { ...health, headers: { authorization: 'Bearer secret' } } } };
      expect(clusterKey(variant)).toBe(clusterKey(base));
      expect(clusterKey(variant)).not.toContain('secret');
    });

    it('a hostname given by an expression is not static text: its cluster and key are those of no hostname', () => {
      const variant: ClusterInput = { ...base, backend: { ...backend, hostname: { kind: 'expr', expr: {} as never } } };
      expect(form(variant)).toBe(form(base));
      expect(clusterKey(variant)).toBe(clusterKey(base));
    });
  });
});

