import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteTestDatabase, type TestDatabase } from '../store/testing/databases.js';
import type { JobRow } from './records.js';
import { jsonInit, startApi, type ApiFixture } from './testing/ingest-fixture.js';

const DEFAULT_ENV = {
  SERVICE_DEFAULT_CALLBACK_URL: 'https://default.example.com/hook',
  SERVICE_DEFAULT_CALLBACK_SECRET: 'default-secret',
  SERVICE_DEFAULT_CALLBACK_HEADERS: '{"X-Default":"yes"}',
};

let database: TestDatabase;
let api: ApiFixture;
let datasetId: string;
beforeAll(async () => {
  database = sqliteTestDatabase();
  api = await startApi(database, DEFAULT_ENV);
  datasetId = (await api.call('/api/v1/datasets', jsonInit({ name: 'd' }))).body.dataset_id;
});
afterAll(async () => {
  await api.close();
  await database.destroy();
});

async function stored(jobId: string) {
  const row = (await api.store.get<JobRow>('SELECT * FROM ingest_jobs WHERE ingest_job_id = ?', [jobId]))!;
  return { url: row.callback_url, secret: row.callback_secret, headers: row.callback_headers === null ? null : JSON.parse(row.callback_headers) };
}

function upload(fields: Record<string, string>, headers: Record<string, string> = {}) {
  const form = new FormData();
  form.append('file', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'data.csv');
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return api.call(`/api/v1/datasets/${datasetId}/files:async`, { method: 'POST', body: form, headers });
}

describe('callback configuration', () => {
  it('applies the default bundle as a whole when a JSON job gives no callback', async () => {
    const res = await api.call('/api/v1/ingest-jobs', jsonInit({ dataset_id: datasetId, job_kind: 'DESCRIBE_PASS' }));
    expect(await stored(res.body.ingest_job_id)).toEqual({ url: 'https://default.example.com/hook', secret: 'default-secret', headers: { 'X-Default': 'yes' } });
  });

  it('does not let a request with its own url inherit the default secret or headers', async () => {
    const res = await api.call('/api/v1/ingest-jobs', jsonInit({ dataset_id: datasetId, job_kind: 'DESCRIBE_PASS', callback: { url: 'https://own.example.com/h' } }));
    expect(await stored(res.body.ingest_job_id)).toEqual({ url: 'https://own.example.com/h', secret: null, headers: {} });
  });

  it('takes the upload callback from the X-Service-Callback-* headers', async () => {
    const res = await upload({}, { 'X-Service-Callback-Url': 'https://hdr.example.com/h', 'X-Service-Callback-Secret': 'hdr-secret', 'X-Service-Callback-Headers': '{"X-A":"1"}' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ job_kind: 'PARSE_AND_INGEST', status: 'QUEUED' });
    expect(res.body.file_id).toEqual(expect.any(String));
    expect(await stored(res.body.ingest_job_id)).toEqual({ url: 'https://hdr.example.com/h', secret: 'hdr-secret', headers: { 'X-A': '1' } });
  });

  it('lets form fields win over headers field by field', async () => {
    const res = await upload(
      { callback_url: 'https://form.example.com/h', callback_headers: '{"X-Form":"1"}' },
      { 'X-Service-Callback-Url': 'https://hdr.example.com/h', 'X-Service-Callback-Secret': 'hdr-secret', 'X-Service-Callback-Headers': '{"X-Hdr":"1"}' },
    );
    expect(await stored(res.body.ingest_job_id)).toEqual({ url: 'https://form.example.com/h', secret: 'hdr-secret', headers: { 'X-Form': '1' } });
  });

  it('uses the default bundle for an upload without any callback url', async () => {
    const res = await upload({});
    expect((await stored(res.body.ingest_job_id)).secret).toBe('default-secret');
  });

  it.each([
    [{ callback_url: 'https://x.example.com/h', callback_headers: '{not json' }, {}, 'callback_headers'],
    [{ callback_url: 'https://x.example.com/h', callback_headers: '["a"]' }, {}, 'callback_headers'],
    [{}, { 'X-Service-Callback-Url': 'https://x.example.com/h', 'X-Service-Callback-Headers': '{"Content-Type":"text/plain"}' }, 'X-Service-Callback-Headers.Content-Type'],
    [{ callback_url: 'http://x.example.com/h' }, {}, 'callback_url'],
    [{ callback_secret: 'orphan' }, {}, 'callback_secret'],
    [{}, { 'X-Service-Callback-Url': 'https://127.0.0.2/h' }, 'X-Service-Callback-Url'],
  ])('refuses upload fields %j / headers %j naming %s', async (fields, headers, field) => {
    const res = await upload(fields, headers);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses an upload without a file part (400), a non-multipart body (415) and an oversized file (413)', async () => {
    const form = new FormData();
    form.append('callback_url', 'https://x.example.com/h');
    const missing = await api.call(`/api/v1/datasets/${datasetId}/files:async`, { method: 'POST', body: form });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0].field).toBe('file');
    const json = await api.call(`/api/v1/datasets/${datasetId}/files:async`, jsonInit({}));
    expect(json.status).toBe(415);
    const small = await startApi(database, { SERVICE_UPLOAD_MAX_BYTES: '4' });
    try {
      const big = new FormData();
      big.append('file', new Blob(['0123456789']), 'big.csv');
      const res = await small.call(`/api/v1/datasets/${datasetId}/files:async`, { method: 'POST', body: big });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
    } finally {
      await small.close();
    }
  });
});
