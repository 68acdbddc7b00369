import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBus } from '../control/event-bus.js';
import { appCaller, testServices } from '../main/testing/control-server.js';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import type { Store } from '../store/types.js';
import { IngestControl } from './control-service.js';
import { JobStore } from './job-store.js';
import { migratedStore, seedDeliveries } from './testing/ingest-fixture.js';
import { INGEST_SERVICE } from './control-router.js';

const factories = await testDatabases();

describe.each(factories.map((f) => [f.kind, f] as const))('deliveries.previewReset / resetDead on %s', (_kind, factory) => {
  let database: TestDatabase;
  let store: Store;
  let caller: ReturnType<typeof appCaller>;
  let events: EventBus;
  beforeEach(async () => {
    database = factory();
    store = await migratedStore(database);
    events = new EventBus('test');
    const control = new IngestControl(() => store, () => new JobStore(store), (message) => events.publish({ type: 'delivery.state', message }), () => 5_000);
    caller = appCaller(testServices(events).provide(INGEST_SERVICE, control));
  });
  afterEach(async () => {
    await store.close();
    await database.destroy();
  });

  async function seed() {
    const a = await seedDeliveries(store, 3, 'https://a.example.com/hook', 'top-secret-value', 1_000);
    const b = await seedDeliveries(store, 2, 'https://b.example.com/hook', null, 1_000);
    await store.run(`UPDATE ingest_callback_outbox SET status = 'DEAD', attempts = 5, finished_at = 2000, last_error = 'receiver answered HTTP 503' WHERE id <> ?`, [a[0]!]);
    return { a, b };
  }

  it('counts what a reset would move, by ids, job, URL or all, and refuses an empty selector', async () => {
    const { a, b } = await seed();
    expect(await caller.deliveries.previewReset({ all: true })).toEqual({ count: 4 });
    expect(await caller.deliveries.previewReset({ url: 'a.example' })).toEqual({ count: 2 });
    expect(await caller.deliveries.previewReset({ ids: [a[0]!, a[1]!, b[0]!] })).toEqual({ count: 2 });
    const job = (await caller.deliveries.get({ id: b[1]! })).ingest_job_id;
    expect(await caller.deliveries.previewReset({ jobId: job })).toEqual({ count: 1 });
    await expect(caller.deliveries.previewReset({})).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(caller.deliveries.resetDead({ actor: 'x' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('moves only DEAD rows to PENDING, due now for a new round with their attempts kept, and records who, when, how many and which', async () => {
    const { a } = await seed();
    const result = await caller.deliveries.resetDead({ url: 'a.example.com', actor: 'ops@host (cli)' });
    expect(result.count).toBe(2);
    const rows = await store.all<{ id: string; status: string; attempts: number; attempts_before_reset: number; next_attempt_at: number; finished_at: number | null }>(
      'SELECT id, status, attempts, attempts_before_reset, next_attempt_at, finished_at FROM ingest_callback_outbox WHERE callback_url = ? ORDER BY id',
      ['https://a.example.com/hook'],
    );
    for (const row of rows) {
      if (row.id === a[0]) expect(row).toMatchObject({ status: 'PENDING', attempts: 0, attempts_before_reset: 0, next_attempt_at: 1_000 });
      else expect(row).toMatchObject({ status: 'PENDING', attempts: 5, attempts_before_reset: 5, next_attempt_at: 5_000, finished_at: null });
    }
    expect(await store.all('SELECT action, actor, at, count, selector FROM ingest_delivery_resets')).toEqual([
      { action: 'reset', actor: 'ops@host (cli)', at: 5_000, count: 2, selector: JSON.stringify({ url: 'a.example.com' }) },
    ]);
    const moved = rows.filter((r) => r.id !== a[0]).map((r) => r.id);
    expect(await store.all('SELECT delivery_id, attempts_before FROM ingest_delivery_reset_rows ORDER BY delivery_id')).toEqual(moved.map((id) => ({ delivery_id: id, attempts_before: 5 })));
    const view = (await caller.deliveries.list({ url: 'a.example', status: 'PENDING', limit: 10, offset: 0 })).items.find((d) => d.id === moved[0])!;
    expect(view).toMatchObject({ attempts: 5, attempts_in_round: 0, max_attempts: 5 });
    expect((await caller.deliveries.get({ id: moved[0]! })).attempt_log).toEqual([{ kind: 'reset', actor: 'ops@host (cli)', at: new Date(5_000).toISOString(), attempts_before: 5 }]);
    expect(await caller.deliveries.previewReset({ all: true })).toEqual({ count: 2 });
    expect(events.since('test:0').map((e) => e.message)).toContain('reset 2 DEAD deliveries to PENDING (by ops@host (cli))');
  });

  it('lists deliveries with filters and an attempt log, never showing the secret', async () => {
    await seed();
    const page = await caller.deliveries.list({ status: 'DEAD', url: 'a.example', limit: 10, offset: 0 });
    expect(page.total).toBe(2);
    expect(page.items[0]).toMatchObject({ status: 'DEAD', signed: true, attempts: 5, last_error: 'receiver answered HTTP 503' });
    const detail = await caller.deliveries.get({ id: page.items[0]!.id });
    expect(detail.attempt_log).toEqual([]);
    const jobs = await caller.jobs.list({ limit: 10, offset: 0 });
    expect(jobs.total).toBe(5);
    const deadJob = jobs.items.find((j) => j.ingest_job_id === page.items[0]!.ingest_job_id)!;
    expect(deadJob.delivery).toMatchObject({ id: page.items[0]!.id, status: 'DEAD', attempts: 5, attempts_in_round: 5, max_attempts: 5, last_error: 'receiver answered HTTP 503' });
    expect((await caller.jobs.get({ id: deadJob.ingest_job_id })).delivery).toEqual(deadJob.delivery);
    expect(await caller.deliveries.counts()).toEqual({ PENDING: 1, DELIVERED: 0, DEAD: 4 });
    expect(jobs.items.find((j) => j.callback?.url === 'https://a.example.com/hook')!.callback!.secret).toBe('***');
    const everything = JSON.stringify([page, detail, jobs, await caller.jobs.get({ id: jobs.items[0]!.ingest_job_id })]);
    expect(everything).not.toContain('top-secret-value');
    await expect(caller.deliveries.get({ id: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
