// Registers vitest hooks, so it stays out of ingest-fixture.ts, which the callback bench imports outside vitest.
import { afterEach, beforeEach } from 'vitest';
import type { TestDatabase } from '../../store/testing/databases.js';
import type { Store } from '../../store/types.js';
import { migratedStore } from './ingest-fixture.js';

export interface StoreFixture {
  readonly database: TestDatabase;
  readonly store: Store;
}

/**
 * For each test of the calling suite: a new database from `factory` with a store open on it,
 * migrated to the ingest schema unless `migrated: false`; both are closed and removed after the test.
 */
export function storePerTest(factory: () => TestDatabase, { migrated = true }: { migrated?: boolean } = {}): StoreFixture {
  let database: TestDatabase | null = null;
  let store: Store | null = null;
  beforeEach(async () => {
    database = factory();
    store = migrated ? await migratedStore(database) : await database.open();
  });
  afterEach(async () => {
    await store?.close();
    await database?.destroy();
    store = null;
    database = null;
  });
  return {
    get database() {
      return database ?? outsideTest('storePerTest');
    },
    get store() {
      return store ?? outsideTest('storePerTest');
    },
  };
}

/** A per-test fixture read where no test is running (at collection, or in a hook that runs before the kit's own). */
export function outsideTest(kit: string): never {
  throw new Error(`${kit}: read outside a test; its fixture exists from its beforeEach to its afterEach`);
}
