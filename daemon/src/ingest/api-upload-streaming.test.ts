import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import { jsonInit, startApi, type ApiFixture } from './testing/ingest-fixture.js';
import { sendStreamedUpload } from './testing/multipart-upload.js';

/** files:async streams the file to the data dir and enforces the size limit while it arrives. */
const factories = await testDatabases();
const MB = 1024 * 1024;
const LIMIT = 4 * MB;

describe.each(factories.map((f) => [f.kind, f] as const))('streamed uploads on %s', (_kind, makeDatabase) => {
  let database: TestDatabase;
  let api: ApiFixture;
  let datasetId: string;
  beforeAll(async () => {
    database = makeDatabase();
    api = await startApi(database, { SERVICE_UPLOAD_MAX_BYTES: String(LIMIT) });
    datasetId = (await api.call('/api/v1/datasets', jsonInit({ name: 'd' }))).body.dataset_id;
  });
  afterAll(async () => {
    await api.close();
    await database.destroy();
  });

  const url = () => `${api.url}/api/v1/datasets/${datasetId}/files:async`;
  const tenant = { 'X-Tenant-Id': 't1', 'X-Workspace-Id': 'w1' };
  const jobCount = async (): Promise<number> => Number((await api.store.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM ingest_jobs'))?.n ?? 0);
  /** Every entry of the uploads folder, temporary files included. */
  const onDisk = (): string[] => {
    try {
      return readdirSync(api.uploads.dir).sort();
    } catch {
      return [];
    }
  };
  const receiving = (): boolean => onDisk().some((name) => name.endsWith('.part'));
  async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; !(await check()); i++) {
      if (i === 400) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('stores the file as <uploads>/<file_id>, mode 0600, with its size and SHA-256; the job records both', async () => {
    const before = onDisk();
    const answer = await sendStreamedUpload({ url: url(), headers: tenant, fileBytes: LIMIT, filename: 'exact.csv', fields: { callback_url: 'https://r.example.com/h' } });
    expect(answer).toMatchObject({ status: 202, body: { status: 'QUEUED', job_kind: 'PARSE_AND_INGEST', request_json: { file: { name: 'exact.csv', size: LIMIT, content_type: 'text/csv' } } } });
    const row = (await api.store.get<{ file_id: string; storage: string; size_bytes: number; sha256: string; content: unknown }>(
      'SELECT f.file_id, f.storage, f.size_bytes, f.sha256, f.content FROM ingest_files f JOIN ingest_jobs j ON j.file_id = f.file_id WHERE j.ingest_job_id = ?',
      [('status' in answer && answer.body.ingest_job_id) as string],
    ))!;
    expect(row).toMatchObject({ storage: 'data_dir', size_bytes: LIMIT, content: null });
    expect(onDisk()).toEqual([...before, row.file_id].sort());
    const path = join(api.uploads.dir, row.file_id);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(createHash('sha256').update(readFileSync(path)).digest('hex')).toBe(row.sha256);
  });

  it('answers 413 as soon as the file passes the limit, mid-stream: no job, no file left', async () => {
    const jobs = await jobCount();
    const before = onDisk();
    const total = 40 * MB;
    const answer = await sendStreamedUpload({ url: url(), headers: tenant, fileBytes: total });
    expect(answer).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large', message: `file: is larger than the limit of ${LIMIT} bytes (SERVICE_UPLOAD_MAX_BYTES)`, details: [{ field: 'file' }] } } });
    // The answer came while the client was still sending: it stopped long before the end.
    expect(answer.sentBytes).toBeLessThan(total / 2);
    expect(await jobCount()).toBe(jobs);
    expect(onDisk()).toEqual(before);
    // The listener took the next upload as usual.
    const next = await sendStreamedUpload({ url: url(), headers: tenant, fileBytes: 1000 });
    expect('status' in next && next.status).toBe(202);
  });

  it('answers 413 before storing anything when Content-Length is past the limit', async () => {
    const before = onDisk();
    const answer = await sendStreamedUpload({ url: url(), headers: tenant, fileBytes: LIMIT + 2 * MB, contentLength: true });
    expect(answer).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
    expect('body' in answer && answer.body.error.message).toMatch(new RegExp(`^request body is \\d+ bytes; the limit is ${LIMIT + MB}$`));
    expect(onDisk()).toEqual(before);
  });

  it('leaves no job and no file when the client goes away mid-upload, and serves the next one', async () => {
    const jobs = await jobCount();
    const before = onDisk();
    // The client stops once the server is writing its file, then goes away.
    const answer = await sendStreamedUpload({ url: url(), headers: tenant, fileBytes: 3 * MB, abortAfterBytes: MB, beforeAbort: () => until(receiving, 'the upload to reach the disk') });
    expect(answer).toEqual({ aborted: true, sentBytes: MB });
    await until(() => !receiving(), 'the server to remove the partial file');
    expect(onDisk()).toEqual(before);
    expect(await jobCount()).toBe(jobs);
    const next = await sendStreamedUpload({ url: url(), headers: tenant, fileBytes: 1000 });
    expect('status' in next && next.status).toBe(202);
  });

  it('removes the file of a refused form: a bad callback after the file, a file where text belongs, a cut body', async () => {
    const jobs = await jobCount();
    const before = onDisk();
    const badTarget = await sendStreamedUpload({ url: url(), headers: tenant, fileBytes: MB, fields: { callback_url: 'http://plain.example.com/h' } });
    expect(badTarget).toMatchObject({ status: 400, body: { error: { details: [{ field: 'callback_url' }] } } });
    const form = new FormData();
    form.append('file', new Blob(['a,b\n1,2\n']), 'ok.csv');
    form.append('callback_url', new Blob(['https://r.example.com/h']), 'url.txt');
    const fileAsText = await api.call(`/api/v1/datasets/${datasetId}/files:async`, { method: 'POST', body: form });
    expect(fileAsText).toMatchObject({ status: 400, body: { error: { message: 'callback_url: must be a text field, not a file' } } });
    const cut = await api.call(`/api/v1/datasets/${datasetId}/files:async`, {
      method: 'POST',
      headers: { 'Content-Type': 'multipart/form-data; boundary=B' },
      body: '--B\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\na,b\n1,2\n',
    });
    expect(cut).toMatchObject({ status: 400, body: { error: { message: 'the multipart body could not be parsed: the multipart body ended before its closing boundary', details: [{ field: 'body', message: 'malformed multipart' }] } } });
    const crowded = await sendStreamedUpload({ url: url(), headers: tenant, fileBytes: 1000, fields: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, 'x'])) });
    expect(crowded).toMatchObject({ status: 400, body: { error: { message: 'the form has more than 100 parts; send the file and the callback fields only' } } });
    expect(onDisk()).toEqual(before);
    expect(await jobCount()).toBe(jobs);
  });

  it('reads the callback fields wherever they are in the form; the first entry of a name wins', async () => {
    const form = new FormData();
    form.append('file', new Blob(['a,b\n1,2\n'], { type: 'Text/CSV' }), 'first.csv');
    form.append('file', new Blob(['ignored']), 'second.csv');
    form.append('callback_url', 'https://after.example.com/h');
    form.append('callback_url', 'https://ignored.example.com/h');
    const created = await api.call(`/api/v1/datasets/${datasetId}/files:async`, { method: 'POST', body: form });
    expect(created).toMatchObject({ status: 202, body: { request_json: { file: { name: 'first.csv', size: 8, content_type: 'text/csv' } } } });
    const job = await api.store.get<{ callback_url: string }>('SELECT callback_url FROM ingest_jobs WHERE ingest_job_id = ?', [created.body.ingest_job_id]);
    expect(job!.callback_url).toBe('https://after.example.com/h');
  });
});
