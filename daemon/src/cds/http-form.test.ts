import { describe, expect, it } from 'vitest';
import { ServicesListener } from '../core/services-listener.js';
import { ClusterCatalog } from './catalog.js';
import { discoveryHttpHandler, isDiscoveryPath } from './http-form.js';
import { CLUSTER_TYPE_URL, loadCdsTypes } from './proto-root.js';
import { backendsHcl, loadConfig, quietLogger } from './testing/cds-fixture.js';
import { afterEach } from 'vitest';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function serve(): Promise<{ url: string; catalog: ClusterCatalog }> {
  const catalog = new ClusterCatalog(loadCdsTypes());
  catalog.updateFrom(
    await loadConfig(backendsHcl({ api: '    origin = "https://api.example.com"\n    connect_timeout = "1.5s"', db: '    origin = "http://10.0.0.5:5432"' })),
    null,
  );
  const listener = new ServicesListener({ host: '127.0.0.1', port: 0 }, quietLogger());
  listener.mount('cds', isDiscoveryPath, discoveryHttpHandler(catalog));
  await listener.start();
  stops.push(() => listener.stop());
  return { url: `${listener.url}/v2/discovery:clusters`, catalog };
}

const post = (url: string, body: string): Promise<Response> => fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('POST /v2/discovery:clusters', () => {
  it('answers a snake_case DiscoveryRequest with canonical proto3 JSON', async () => {
    const { url, catalog } = await serve();
    const res = await post(url, JSON.stringify({ node: { id: 'envoy-rest', cluster: 'edge' }, resource_names: [], some_future_field: 1 }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as { version_info: string; type_url: string; resources: Record<string, unknown>[] };
    expect(body.version_info).toBe(catalog.current.version);
    expect(body.type_url).toBe(CLUSTER_TYPE_URL);
    expect(body.resources.map((r) => r['name'])).toEqual(['api', 'db']);
    const api = body.resources[0]!;
    expect(api).toMatchObject({
      '@type': CLUSTER_TYPE_URL,
      name: 'api',
      type: 'STRICT_DNS',
      connect_timeout: '1.500s',
      metadata: { filter_metadata: { portico: { origin: 'https://api.example.com', anonymous: false, use_when_unhealthy: false } } },
      transport_socket: { name: 'envoy.transport_sockets.tls', typed_config: { '@type': 'type.googleapis.com/proxy.api.v2.auth.UpstreamTlsContext', sni: 'api.example.com', common_tls_context: { validation_context: {} } } },
    });
    expect(body.resources[1]).toMatchObject({ name: 'db', type: 'STATIC', load_assignment: { endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: '10.0.0.5', port_value: 5432 } } } }] }] } });
  });

  it('accepts camelCase names and answers only the named clusters', async () => {
    const { url } = await serve();
    const res = await post(url, JSON.stringify({ versionInfo: 'old', resourceNames: ['db', 'missing'], typeUrl: CLUSTER_TYPE_URL }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { resources: { name: string }[] };
    expect(body.resources.map((r) => r.name)).toEqual(['db']);
  });

  it('answers 304 when the version is current and every named cluster exists', async () => {
    const { url, catalog } = await serve();
    const current = catalog.current.version;
    expect((await post(url, JSON.stringify({ version_info: current }))).status).toBe(304);
    expect((await post(url, JSON.stringify({ version_info: current, resource_names: ['api'] }))).status).toBe(304);
    expect((await post(url, JSON.stringify({ version_info: current, resource_names: ['api', 'missing'] }))).status).toBe(200);
  });

  it('answers 400 with the reason for bodies that are not a DiscoveryRequest', async () => {
    const { url } = await serve();
    const cases: [string, string][] = [
      ['{not json', 'not valid JSON'],
      ['', 'the body is empty'],
      ['[1,2]', 'expected a JSON object'],
      ['{"resource_names":"api"}', 'resource_names: expected a JSON array'],
      ['{"version_info":7}', 'version_info: expected a string'],
      ['{"node":{"id":["x"]}}', 'node.id: expected a string'],
      ['{"error_detail":{"code":"x"}}', 'error_detail.code: expected an integer'],
      ['{"type_url":"type.googleapis.com/proxy.api.v2.Listener"}', 'is not served here'],
    ];
    for (const [body, reason] of cases) {
      const res = await post(url, body);
      expect(res.status, body).toBe(400);
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect(json.error.code).toBe('bad_discovery_request');
      expect(json.error.message, body).toContain(reason);
    }
  });

  it('answers 405 with Allow: POST for other methods', async () => {
    const { url } = await serve();
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await fetch(url, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });
});
