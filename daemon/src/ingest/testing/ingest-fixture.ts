import { Logger } from '../../core/logger.js';
import { ServicesListener } from '../../core/services-listener.js';
import { migrate } from '../../store/migrate.js';
import type { TestDatabase } from '../../store/testing/databases.js';
import type { Store } from '../../store/types.js';
import { ingestApi } from '../ingest-api.js';
import { readIngestSettings, type IngestSettings } from '../ingest-settings.js';
import { INGEST_MIGRATIONS } from '../migrations.js';
import { JobStore } from '../job-store.js';

export const QUIET_LOGGER = new Logger({ level: 'error', sink: { write: () => {} } });

export async function migratedStore(database: TestDatabase): Promise<Store> {
  const store = await database.open();
  await migrate(store, [{ area: 'ingest', migrations: INGEST_MIGRATIONS }]);
  return store;
}

export interface ApiFixture {
  url: string;
  store: Store;
  jobs: JobStore;
  settings: IngestSettings;
  /** fetch against the API with tenant headers (override or drop them per call). */
  call(path: string, init?: RequestInit & { tenant?: string | null; workspace?: string | null }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/** The ingest API on a real services listener (port 0) over a migrated test database. */
export async function startApi(database: TestDatabase, env: NodeJS.ProcessEnv = {}): Promise<ApiFixture> {
  const store = await migratedStore(database);
  const settings = readIngestSettings({ SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1,localhost', ...env });
  const jobs = new JobStore(store);
  const listener = new ServicesListener({ host: '127.0.0.1', port: 0 }, QUIET_LOGGER);
  listener.mount('ingest', (p) => p.startsWith('/api/v1/'), ingestApi({ store, jobs, settings }));
  await listener.start();
  const url = listener.url!;
  return {
    url,
    store,
    jobs,
    settings,
    async call(path, init = {}) {
      const { tenant = 't1', workspace = 'w1', ...rest } = init;
      const headers = new Headers(rest.headers);
      if (tenant !== null) headers.set('X-Tenant-Id', tenant);
      if (workspace !== null) headers.set('X-Workspace-Id', workspace);
      const res = await fetch(`${url}${path}`, { ...rest, headers });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep text */
      }
      return { status: res.status, body, headers: res.headers };
    },
    async close() {
      await listener.stop();
      await store.close();
    },
  };
}

export function jsonInit(body: unknown, init: RequestInit & { tenant?: string | null; workspace?: string | null } = {}) {
  return { ...init, method: 'POST', headers: { 'Content-Type': 'application/json', ...(init.headers as Record<string, string> | undefined) }, body: JSON.stringify(body) };
}
