import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import { jsonInit, startApi, type ApiFixture } from './testing/ingest-fixture.js';

/** A client that retries after a lost response sends the same Idempotency-Key: no second job. */
const factories = await testDatabases();

describe.each(factories.map((f) => [f.kind, f] as const))('Idempotency-Key on job creation on %s', (_kind, makeDatabase) => {
    let database: TestDatabase;
    let api: ApiFixture;
    let datasetId: string;
    beforeAll(async () => {
      database = makeDatabase();
      api = await startApi(database);
      datasetId = (await api.call('/api/v1/datasets', jsonInit({ name: 'd' }))).body.dataset_id;
    });
    afterAll(async () => {
      await api.close();
      await database.destroy();
    });

    const create = (key: string | null, body: unknown = { dataset_id: datasetId, job_kind: 'DESCRIBE_PASS' }, tenant = 't1') =>
      api.call('/api/v1/ingest-jobs', jsonInit(body, { tenant, headers: key === null ? {} : { 'Idempotency-Key': key } }));
    const jobCount = async (): Promise<number> => Number((await api.store.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM ingest_jobs'))?.n ?? 0);

    it('returns the first job for a repeated key, marked as replayed, and creates no second one', async () => {
      const before = await jobCount();
      const first = await create('retry-1');
      expect(first.status).toBe(202);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await create('retry-1');
      expect(again.status).toBe(202);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.ingest_job_id).toBe(first.body.ingest_job_id);
      expect(again.headers.get('location')).toBe(`/api/v1/ingest-jobs/${first.body.ingest_job_id}`);
      expect(await jobCount()).toBe(before + 1);
      // Without a key, every request is a new job.
      const a = await create(null);
      const b = await create(null);
      expect(a.body.ingest_job_id).not.toBe(b.body.ingest_job_id);
    });

    it('refuses the key for a different request (409), and keeps keys per tenant', async () => {
      await create('retry-2');
      const other = await create('retry-2', { dataset_id: datasetId, job_kind: 'SAMPLE_REFRESH' });
      expect(other.status).toBe(409);
      expect(other.body.error).toMatchObject({ code: 'conflict', details: [{ field: 'Idempotency-Key' }] });
      const dataset2 = (await api.call('/api/v1/datasets', jsonInit({ name: 'd2' }, { tenant: 't2' }))).body.dataset_id as string;
      const foreign = await create('retry-2', { dataset_id: dataset2, job_kind: 'DESCRIBE_PASS' }, 't2');
      expect(foreign.status).toBe(202);
      expect(foreign.headers.get('idempotent-replayed')).toBeNull();
    });

    it('creates one job for concurrent requests with the same key', async () => {
      const before = await jobCount();
      const answers = await Promise.all(Array.from({ length: 8 }, () => create('burst-1')));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(202));
      expect(new Set(answers.map((a) => a.body.ingest_job_id)).size).toBe(1);
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
      expect(await jobCount()).toBe(before + 1);
    });

    it('works for uploads too (one job, one stored file), and refuses a malformed key', async () => {
      const upload = () => {
        const form = new FormData();
        form.set('file', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'numbers.csv');
        return api.call(`/api/v1/datasets/${datasetId}/files:async`, { method: 'POST', body: form, headers: { 'Idempotency-Key': 'upload-1' } });
      };
      const files = async (): Promise<number> => Number((await api.store.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM ingest_files'))?.n ?? 0);
      const onDisk = (): number => readdirSync(api.uploads.dir).length;
      const before = await files();
      const first = await upload();
      const diskBefore = onDisk();
      const again = await upload();
      expect([first.status, again.status]).toEqual([202, 202]);
      expect(again.body.ingest_job_id).toBe(first.body.ingest_job_id);
      expect(await files()).toBe(before + 1);
      // The repeat's copy of the file is not kept either.
      expect(onDisk()).toBe(diskBefore);
      const bad = await create('has space');
      expect(bad.status).toBe(400);
      expect(bad.body.error.details).toEqual([{ field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }]);
  });
});
