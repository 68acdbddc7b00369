// Registers vitest hooks, so it stays out of ingest-fixture.ts, which the callback bench imports outside vitest.
import { afterEach, beforeEach } from 'vitest';
import type { TestDatabase } from '../../store/testing/databases.js';
import type { Queryable, Store } from '../../store/types.js';
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

/** `store` with its transactions run through `transaction` (to count or hold them); every other call goes to `store`. */
export function withTransactions(store: Store, transaction: Store['transaction']): Store {
  return {
    kind: store.kind,
    location: store.location,
    all: (sql, params) => store.all(sql, params),
    get: (sql, params) => store.get(sql, params),
    run: (sql, params) => store.run(sql, params),
    exec: (sql) => store.exec(sql),
    transaction,
    close: () => store.close(),
  };
}

/** `tx` calling `seen(sql)` before each statement. */
export function seeingStatements(tx: Queryable, seen: (sql: string) => void): Queryable {
  return {
    all: (sql, params) => (seen(sql), tx.all(sql, params)),
    get: (sql, params) => (seen(sql), tx.get(sql, params)),
    run: (sql, params) => (seen(sql), tx.run(sql, params)),
    exec: (sql) => (seen(sql), tx.exec(sql)),
  };
}
