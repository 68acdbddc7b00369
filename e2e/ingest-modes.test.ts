import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedDeliveries } from '../daemon/src/ingest/testing/ingest-fixture.js';
import { SqliteStore } from '../daemon/src/store/sqlite-store.js';
import { controlQuery, startDaemon, waitUntil, type DaemonHandle } from './harness.js';

const started: DaemonHandle[] = [];
afterAll(async () => {
  for (const d of started.reverse()) await d.dispose();
});

interface Status {
  components: Array<{ name: string; state: string }>;
}

async function components(d: DaemonHandle): Promise<string[]> {
  const res = await controlQuery(d, 'system.status', d.token);
  return (res.body as { result: { data: Status } }).result.data.components.filter((c) => c.state === 'running').map((c) => c.name);
}

describe('ingest roles by --mode', () => {
  it.each([
    ['all', ['ingest-worker', 'callback-worker', 'retention-worker', 'services'], []],
    ['gateway', ['services'], ['ingest-worker', 'callback-worker', 'retention-worker']],
    ['ingest-worker', ['ingest-worker'], ['callback-worker', 'retention-worker', 'services']],
    ['callback-worker', ['callback-worker'], ['ingest-worker', 'retention-worker', 'services']],
    ['retention-worker', ['retention-worker'], ['ingest-worker', 'callback-worker', 'services']],
  ])('%s runs %j and not %j', async (mode, runs, absent) => {
    const d = await startDaemon({ args: ['--mode', mode] });
    started.push(d);
    const names = await components(d);
    for (const name of runs) expect(names).toContain(name);
    for (const name of absent) expect(names).not.toContain(name);
    // Every ingest role serves the operator API; gateway mode also answers the public API.
    const list = await controlQuery(d, `deliveries.list?input=${encodeURIComponent(JSON.stringify({ limit: 5 }))}`, d.token);
    expect(list.status).toBe(200);
  });

  it('refuses to start with a bad SERVICE_* variable, naming it and not its value', async () => {
    const d = await startDaemon({ env: { SERVICE_DEFAULT_CALLBACK_URL: 'http://insecure.example.com/h', SERVICE_DEFAULT_CALLBACK_SECRET: 'do-not-print-me' }, noWait: true });
    started.push(d);
    expect(await d.exited()).toBe(1);
    expect(d.logs()).toMatch(/SERVICE_DEFAULT_CALLBACK_URL: must be an https:\/\/ URL/);
    expect(d.logs()).not.toContain('do-not-print-me');
  });

  it('a retention-worker process removes old DELIVERED rows and keeps DEAD ones', async () => {
    const d = await startDaemon({ args: ['--mode', 'retention-worker'], env: { SERVICE_RETENTION_DAYS: '1', SERVICE_RETENTION_INTERVAL_S: '0.2' } });
    started.push(d);
    const store = new SqliteStore({ file: join(d.dataDir, 'portico.db') });
    try {
      const [delivered, dead, recent] = await seedDeliveries(store, 3, 'https://r.example.com/h');
      const old = Date.now() - 2 * 24 * 3600_000;
      await store.run("UPDATE ingest_callback_outbox SET status = 'DELIVERED', finished_at = ? WHERE id = ?", [old, delivered!]);
      await store.run("UPDATE ingest_callback_outbox SET status = 'DEAD', finished_at = ? WHERE id = ?", [old, dead!]);
      await store.run("UPDATE ingest_callback_outbox SET status = 'DELIVERED', finished_at = ? WHERE id = ?", [Date.now(), recent!]);
      await waitUntil(async () => !(await store.get('SELECT id FROM ingest_callback_outbox WHERE id = ?', [delivered!])), 10_000);
      const left = (await store.all<{ id: string }>('SELECT id FROM ingest_callback_outbox')).map((r) => r.id).sort();
      expect(left).toEqual([dead!, recent!].sort());
      // The pass logs once it is done with the files too, a moment after the rows went.
      await waitUntil(() => d.logs().includes('retention_pass'), 10_000, () => 'the retention_pass log line');
    } finally {
      await store.close();
    }
  });
});
