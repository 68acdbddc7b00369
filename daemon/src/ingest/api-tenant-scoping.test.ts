import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import { jsonInit, startApi, type ApiFixture } from './testing/ingest-fixture.js';

const factories = await testDatabases();

describe.each(factories.map((f) => [f.kind, f] as const))('ingest API tenant scoping on %s', (_kind, factory) => {
  let database: TestDatabase;
  let api: ApiFixture;
  beforeEach(async () => {
    database = factory();
    api = await startApi(database);
  });
  afterEach(async () => {
    await api.close();
    await database.destroy();
  });

  it('refuses requests without X-Tenant-Id or X-Workspace-Id with 401 naming the header', async () => {
    const noTenant = await api.call('/api/v1/ingest-jobs', { tenant: null });
    expect(noTenant.status).toBe(401);
    expect(noTenant.body.error.code).toBe('tenant_headers_missing');
    expect(noTenant.body.error.message).toContain('X-Tenant-Id');
    const noWorkspace = await api.call('/api/v1/datasets', jsonInit({ name: 'x' }, { workspace: null }));
    expect(noWorkspace.status).toBe(401);
    expect(noWorkspace.body.error.details).toEqual([{ field: 'X-Workspace-Id', message: 'is required' }]);
    const malformed = await api.call('/api/v1/ingest-jobs', { tenant: 'a b' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/^X-Tenant-Id/);
  });

  it('shows a dataset and its jobs only to its own tenant and workspace', async () => {
    const ds = await api.call('/api/v1/datasets', jsonInit({ name: 'sales' }));
    expect(ds.status).toBe(201);
    expect(ds.body).toMatchObject({ tenant_id: 't1', workspace_id: 'w1', name: 'sales' });
    const id = ds.body.dataset_id as string;
    expect(ds.headers.get('location')).toBe(`/api/v1/datasets/${id}`);

    expect((await api.call(`/api/v1/datasets/${id}`)).status).toBe(200);
    expect((await api.call(`/api/v1/datasets/${id}`, { tenant: 't2' })).status).toBe(404);
    expect((await api.call(`/api/v1/datasets/${id}`, { workspace: 'w2' })).status).toBe(404);

    const job = await api.call('/api/v1/ingest-jobs', jsonInit({ dataset_id: id, job_kind: 'DESCRIBE_PASS' }));
    expect(job.status).toBe(202);
    const jobId = job.body.ingest_job_id as string;
    const foreignJob = await api.call('/api/v1/ingest-jobs', jsonInit({ dataset_id: id, job_kind: 'DESCRIBE_PASS' }, { tenant: 't2' }));
    expect(foreignJob.status).toBe(404);
    expect(foreignJob.body.error.code).toBe('not_found');

    expect((await api.call(`/api/v1/ingest-jobs/${jobId}`)).body.status).toBe('QUEUED');
    expect((await api.call(`/api/v1/ingest-jobs/${jobId}`, { tenant: 't2' })).status).toBe(404);
    expect((await api.call(`/api/v1/ingest-jobs/${jobId}:cancel`, { method: 'POST', tenant: 't2' })).status).toBe(404);
    expect((await api.call(`/api/v1/ingest-jobs/${jobId}/callbacks`, { tenant: 't2' })).status).toBe(404);
    expect((await api.call('/api/v1/ingest-jobs')).body.total).toBe(1);
    expect((await api.call('/api/v1/ingest-jobs', { tenant: 't2' })).body).toEqual({ items: [], total: 0, limit: 50, offset: 0 });
  });

  it('cancels a QUEUED job once and answers 409 the second time', async () => {
    const ds = await api.call('/api/v1/datasets', jsonInit({ name: 'sales' }));
    const job = await api.call('/api/v1/ingest-jobs', jsonInit({ dataset_id: ds.body.dataset_id, job_kind: 'SAMPLE_REFRESH' }));
    const first = await api.call(`/api/v1/ingest-jobs/${job.body.ingest_job_id}:cancel`, { method: 'POST' });
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('CANCELLED');
    const second = await api.call(`/api/v1/ingest-jobs/${job.body.ingest_job_id}:cancel`, { method: 'POST' });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('conflict');
  });

  it('filters and pages the job listing', async () => {
    const ds = await api.call('/api/v1/datasets', jsonInit({ name: 'a' }));
    for (const kind of ['DESCRIBE_PASS', 'DESCRIBE_PASS', 'RELATION_PASS']) {
      await api.call('/api/v1/ingest-jobs', jsonInit({ dataset_id: ds.body.dataset_id, job_kind: kind }));
    }
    const described = await api.call('/api/v1/ingest-jobs?job_kind=DESCRIBE_PASS&limit=1&offset=1');
    expect(described.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(described.body.items).toHaveLength(1);
    expect((await api.call(`/api/v1/ingest-jobs?dataset_id=${ds.body.dataset_id}&status=QUEUED`)).body.total).toBe(3);
    const bad = await api.call('/api/v1/ingest-jobs?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('limit');
    expect((await api.call('/api/v1/ingest-jobs?status=DONE')).body.error.message).toMatch(/^status: must be one of QUEUED/);
  });
});
