import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PostgresStore, quoteIdent } from '../postgres-store.js';
import { SqliteStore } from '../sqlite-store.js';
import type { Store } from '../types.js';

/** The PostgreSQL the tests use; CI sets PORTICO_TEST_REQUIRE_POSTGRES=1 so it never skips. */
export const TEST_POSTGRES_URL = process.env.PORTICO_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REQUIRED = process.env.PORTICO_TEST_REQUIRE_POSTGRES === '1';

export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    if (REQUIRED) {
      throw new Error(`PostgreSQL at ${TEST_POSTGRES_URL} is required (PORTICO_TEST_REQUIRE_POSTGRES=1) but unreachable: ${String(error)}`);
    }
    console.warn(`\n*** SKIPPING PostgreSQL store tests: ${TEST_POSTGRES_URL} unreachable (${String(error)}). Set PORTICO_TEST_REQUIRE_POSTGRES=1 to make this a failure. ***\n`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface TestDatabase {
  kind: 'sqlite' | 'postgres';
  /** Opens a new store on the same database (a second process would see the same data). */
  open(): Promise<Store>;
  /** How a child process reaches it: a file path or a URL plus schema. */
  address: { file?: string; url?: string; schema?: string };
  destroy(): Promise<void>;
}

/** Makes a new test database; `kind` says which without making one (a SQLite one is a temporary folder). */
export type TestDatabaseFactory = (() => TestDatabase) & { readonly kind: TestDatabase['kind'] };

export const sqliteTestDatabase: TestDatabaseFactory = Object.assign(newSqliteTestDatabase, { kind: 'sqlite' as const });
export const postgresTestDatabase: TestDatabaseFactory = Object.assign(newPostgresTestDatabase, { kind: 'postgres' as const });

function newSqliteTestDatabase(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'portico-store-'));
  const file = join(dir, 'portico.db');
  return {
    kind: 'sqlite',
    address: { file },
    open: async () => new SqliteStore({ file }),
    destroy: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function newPostgresTestDatabase(): TestDatabase {
  const schema = `portico_test_${randomBytes(6).toString('hex')}`;
  return {
    kind: 'postgres',
    address: { url: TEST_POSTGRES_URL, schema },
    open: () => PostgresStore.connect({ url: TEST_POSTGRES_URL, schema, maxConnections: 5 }),
    destroy: async () => {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      await client.end();
    },
  };
}

/** Both databases when PostgreSQL is reachable, else SQLite alone (with a loud warning). */
export async function testDatabases(): Promise<TestDatabaseFactory[]> {
  return (await postgresReachable()) ? [sqliteTestDatabase, postgresTestDatabase] : [sqliteTestDatabase];
}
