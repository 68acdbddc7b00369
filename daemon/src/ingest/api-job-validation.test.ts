import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteTestDatabase, type TestDatabase } from '../store/testing/databases.js';
import { jsonInit, startApi, type ApiFixture } from './testing/ingest-fixture.js';

let database: TestDatabase;
let api: ApiFixture;
let datasetId: string;
beforeAll(async () => {
  database = sqliteTestDatabase();
  api = await startApi(database);
  datasetId = (await api.call('/api/v1/datasets', jsonInit({ name: 'd' }))).body.dataset_id;
});
afterAll(async () => {
  await api.close();
  await database.destroy();
});

async function create(body: unknown) {
  return api.call('/api/v1/ingest-jobs', jsonInit(body));
}

describe('POST /api/v1/ingest-jobs validation', () => {
  it.each([
    [{ dataset_id: undefined, job_kind: 'DESCRIBE_PASS' }, 'dataset_id'],
    [{ dataset_id: 'nope', job_kind: 'DESCRIBE_PASS' }, 'dataset_id'],
    [{ job_kind: 'PARSE_AND_INGEST' }, 'job_kind'],
    [{ job_kind: 'FROB' }, 'job_kind'],
    [{ job_kind: 'REPARSE' }, 'table_id'],
    [{ job_kind: 'DESCRIBE_PASS', extra: 1 }, ''],
    [{ job_kind: 'DESCRIBE_PASS', callback: {} }, 'callback.url'],
    [{ job_kind: 'DESCRIBE_PASS', callback: { url: 'http://example.com/hook' } }, 'callback.url'],
    [{ job_kind: 'DESCRIBE_PASS', callback: { url: 'https://user:pw@example.com/hook' } }, 'callback.url'],
    [{ job_kind: 'DESCRIBE_PASS', callback: { url: 'https://example.com/hook', secret: '' } }, 'callback.secret'],
    [{ job_kind: 'DESCRIBE_PASS', callback: { url: 'https://example.com/hook', headers: { 'X-Service-Signature': 'forged' } } }, 'callback.headers.X-Service-Signature'],
    [{ job_kind: 'DESCRIBE_PASS', callback: { url: 'https://example.com/hook', headers: { 'content-type': 'text/plain' } } }, 'callback.headers.content-type'],
    [{ job_kind: 'DESCRIBE_PASS', callback: { url: 'https://example.com/hook', headers: { 'x-service-event': 'ingest.succeeded' } } }, 'callback.headers.x-service-event'],
    [{ job_kind: 'DESCRIBE_PASS', callback: { url: 'https://example.com/hook', headers: { 'X-Service-Job-Id': '1' } } }, 'callback.headers.X-Service-Job-Id'],
    [{ job_kind: 'DESCRIBE_PASS', callback: { url: 'https://example.com/hook', headers: { 'X-Ok': 1 } } }, 'callback.headers.X-Ok'],
    [{ job_kind: 'DESCRIBE_PASS', callback: { url: 'https://example.com/hook', headers: { 'X-Ok': 'a\r\nInjected: 1' } } }, 'callback.headers.X-Ok'],
    [{ job_kind: 'DESCRIBE_PASS', callback: { url: 'https://10.0.0.7/hook' } }, 'callback.url'],
  ])('refuses %j with 400 naming %s', async (partial, field) => {
    const body = { ...(('dataset_id' in partial) ? {} : { dataset_id: datasetId }), ...partial };
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(res.body.error.message).toContain(field === '' ? 'extra' : field);
  });

  it('refuses a body that is not JSON (400) or not declared as JSON (415)', async () => {
    const broken = await api.call('/api/v1/ingest-jobs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"dataset_id":' });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('bad_json');
    const text = await api.call('/api/v1/ingest-jobs', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
    expect(text.status).toBe(415);
  });

  it('answers 404 for an unknown dataset, 422 for a table of another dataset, 405 for a wrong method', async () => {
    const unknown = await create({ dataset_id: '00000000-0000-4000-8000-000000000000', job_kind: 'DESCRIBE_PASS' });
    expect(unknown.status).toBe(404);
    const table = await create({ dataset_id: datasetId, job_kind: 'REPARSE', table_id: '00000000-0000-4000-8000-000000000000' });
    expect(table.status).toBe(422);
    expect(table.body.error.details[0].field).toBe('table_id');
    const method = await api.call('/api/v1/ingest-jobs', { method: 'DELETE' });
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toBe('POST, GET');
  });

  it('accepts a valid job and never returns its callback secret', async () => {
    const res = await create({ dataset_id: datasetId, job_kind: 'DESCRIBE_PASS', callback: { url: 'https://example.com/hook', secret: 's3cret-value-s3cret-value-s3cret', headers: { 'X-Receiver-Key': 'abc' } } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'QUEUED', job_kind: 'DESCRIBE_PASS', attempts: 0, dataset_id: datasetId, table_id: null, result_json: {} });
    expect(res.body.request_json).toMatchObject({ dataset_name: 'd', source: 'api' });
    expect(JSON.stringify(res.body)).not.toContain('s3cret');
    const got = await api.call(`/api/v1/ingest-jobs/${res.body.ingest_job_id}`);
    expect(JSON.stringify(got.body)).not.toContain('s3cret');
  });
});
