import { join } from 'node:path';
import { PostgresStore } from './postgres-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './types.js';

export interface StoreSettings {
  /** PORTICO_DATABASE_URL; unset means SQLite in the data dir. */
  databaseUrl?: string | undefined;
  dataDir: string;
}

export async function openStore({ databaseUrl, dataDir }: StoreSettings): Promise<Store> {
  if (databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
      throw new Error('PORTICO_DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for SQLite in the data dir)');
    }
    return PostgresStore.connect({ url: databaseUrl });
  }
  return new SqliteStore({ file: join(dataDir, 'portico.db') });
}
