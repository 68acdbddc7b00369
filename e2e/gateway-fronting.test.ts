import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPortico, startDaemon, waitUntil, type DaemonHandle } from './harness.js';

// The daemon on the checkout's own config/portico.hcl: the gateway fronts the internal services.
let daemon: DaemonHandle;
let key: string;
let tenant: Record<string, string>;

const gateway = (path: string, init?: RequestInit): Promise<Response> => fetch(`${daemon.gatewayUrl}${path}`, init);

beforeAll(async () => {
  daemon = await startDaemon();
  const created = await runPortico(['keys', 'create', '--name', 'gateway-e2e', '--url', daemon.controlUrl, '--data-dir', daemon.dataDir]);
  expect(created.code, created.stderr).toBe(0);
  key = created.stdout.trimEnd().split('\n').at(-1) ?? '';
  const token = await runPortico(['token', 'create', '--tenant', 'acme', '--workspace', 'main', '--data-dir', daemon.dataDir]);
  expect(token.code, token.stderr).toBe(0);
  tenant = { Authorization: `Bearer ${token.stdout.trimEnd().split('\n').at(-1) ?? ''}` };
});
afterAll(async () => {
  await daemon?.dispose();
});

describe('the default gateway config', () => {
  it('serves the landing page, its own health and a status endpoint built from expressions', async () => {
    const landing = await gateway('/');
    expect(landing.status).toBe(200);
    expect(landing.headers.get('content-type')).toContain('text/html');
    expect(await landing.text()).toContain('<h1>Portico gateway</h1>');
    expect(landing.headers.get('gateway-request-id')).toMatch(/^[0-9a-v]{20}$/);

    const health = await gateway('/healthz');
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('healthy');

    await waitUntil(async () => {
      const status = (await (await gateway('/status')).json()) as { backends: { services: { state: string } } };
      return status.backends.services.state === 'healthy';
    }, 10_000, () => 'the services backend never became healthy');
    const status = await gateway('/status');
    const body = (await status.json()) as Record<string, any>;
    expect(body).toEqual({ gateway: expect.any(String), request_id: status.headers.get('gateway-request-id'), backends: { services: { error: '', healthy: true, state: 'healthy' } } });
  });

  it('fronts the infosessions listing in every format, with the same answer as the service itself', async () => {
    const viaGateway = await gateway(`/v2/resources/infosessions.json?key=${key}`);
    expect(viaGateway.status).toBe(200);
    expect(viaGateway.headers.get('content-type')).toContain('application/json');
    const fronted = (await viaGateway.json()) as { meta: Record<string, unknown>; data: unknown[] };
    const direct = (await (await fetch(`${daemon.servicesUrl}/v2/resources/infosessions.json?key=${key}`)).json()) as typeof fronted;
    expect(fronted.data.length).toBeGreaterThan(100);
    expect(fronted.data).toEqual(direct.data);
    expect(fronted.meta.method_id).toBe(1129);

    const xml = await gateway(`/v2/resources/infosessions.xml?key=${key}`);
    expect(xml.status).toBe(200);
    expect(await xml.text()).toMatch(/^<\?xml/);

    const jsonp = await gateway(`/v2/resources/infosessions.json?key=${key}&callback=show`);
    expect(await jsonp.text()).toMatch(/^\/\*\*\/\s*show\(|^show\(/);

    // The service's own statuses come through unchanged (no key: 511 with the service's envelope).
    const noKey = await gateway('/v2/resources/infosessions.json');
    expect(noKey.status).toBe(511);
    expect(((await noKey.json()) as { meta: { message: string } }).meta.message).toContain('API key');
    // Only GET and HEAD are routed to the listing.
    const post = await gateway(`/v2/resources/infosessions.json?key=${key}`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('gateway-error')).toBe('method not allowed error');
  });

  it('fronts the ingest API: datasets, a streamed multipart upload and its job', async () => {
    const ds = await gateway('/api/v1/datasets', { method: 'POST', headers: { ...tenant, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'through-the-gateway' }) });
    expect(ds.status).toBe(201);
    const dataset = (await ds.json()) as { dataset_id: string };
    const form = new FormData();
    form.set('file', new Blob(['city,population\nWaterloo,121436\nKitchener,256885\n'], { type: 'text/csv' }), 'cities.csv');
    const upload = await gateway(`/api/v1/datasets/${dataset.dataset_id}/files:async`, { method: 'POST', headers: tenant, body: form });
    expect(upload.status).toBe(202);
    const job = (await upload.json()) as { ingest_job_id: string };
    await waitUntil(async () => {
      const read = (await (await gateway(`/api/v1/ingest-jobs/${job.ingest_job_id}`, { headers: tenant })).json()) as { status: string; result_json: { row_count?: number } };
      return read.status === 'SUCCEEDED' && read.result_json.row_count === 2;
    }, 15_000, () => `job ${job.ingest_job_id} did not succeed through the gateway`);
    // Without a token the gateway refuses before the service is asked.
    const missingToken = await gateway(`/api/v1/ingest-jobs/${job.ingest_job_id}`, { headers: { 'X-Tenant-Id': 'acme', 'X-Workspace-Id': 'main' } });
    expect(missingToken.status).toBe(401);
    expect(missingToken.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('fronts the discovery HTTP form, which lists the gateway backend as a cluster', async () => {
    const res = await gateway('/v2/discovery:clusters', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ node: { id: 'e2e' } }) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { version_info: string; resources: Array<{ '@type': string; name: string }> };
    expect(body.resources.map((r) => r.name)).toContain('services');
    expect(body.resources[0]?.['@type']).toBe('type.googleapis.com/proxy.api.v2.Cluster');
    const again = await gateway('/v2/discovery:clusters', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ version_info: body.version_info }) });
    expect(again.status).toBe(304);
  });

  it('answers unknown paths with an HTML page outside the apis and JSON inside them', async () => {
    const page = await gateway('/nowhere');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('route not found error');

    const api = await gateway('/v2/nowhere?secret=1');
    expect(api.status).toBe(404);
    const error = (await api.json()) as { error: Record<string, unknown> };
    expect(error.error).toEqual({ id: api.headers.get('gateway-request-id'), message: 'route not found error', path: '/v2/nowhere', status: 404 });
  });
});
