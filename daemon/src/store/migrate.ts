import { PorticoError } from '../core/errors.js';
import type { Migration, Queryable, Store, StoreKind } from './types.js';

export interface AppliedMigration {
  id: number;
  name: string;
  applied_at: number;
}

// Any constant works; it only has to be the same in every Portico process sharing a database.
const PG_MIGRATION_LOCK = 7_301_455_112;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;

/**
 * Applies pending migrations in id order, each in its own transaction together with its
 * row in schema_migrations, so a crash mid-migration leaves the database as it was.
 * Returns the schema version (highest applied id).
 */
export async function migrate(store: Store, migrations: readonly Migration[]): Promise<number> {
  checkList(migrations);
  // Under the lock too: PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against a racing twin.
  await store.transaction(async (tx) => {
    await lockMigrations(tx, store.kind);
    await tx.exec(CREATE_TABLE);
  });
  for (const migration of migrations) {
    await store.transaction(async (tx) => {
      await lockMigrations(tx, store.kind);
      const applied = await appliedMigrations(tx);
      checkApplied(applied, migrations);
      if (applied.some((a) => a.id === migration.id)) return;
      await runUp(tx, store.kind, migration);
      await tx.run('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)', [migration.id, migration.name, Date.now()]);
    });
  }
  if (migrations.length === 0) checkApplied(await appliedMigrations(store), migrations);
  return schemaVersion(store);
}

export async function appliedMigrations(db: Queryable): Promise<AppliedMigration[]> {
  return db.all<AppliedMigration>('SELECT id, name, applied_at FROM schema_migrations ORDER BY id');
}

export async function schemaVersion(db: Queryable): Promise<number> {
  const row = await db.get<{ v: number | null }>('SELECT MAX(id) AS v FROM schema_migrations');
  return row?.v ?? 0;
}

/** SQLite's BEGIN IMMEDIATE already excludes other writers; PostgreSQL needs an explicit lock. */
async function lockMigrations(tx: Queryable, kind: StoreKind): Promise<void> {
  if (kind === 'postgres') await tx.get('SELECT pg_advisory_xact_lock(?)', [PG_MIGRATION_LOCK]);
}

async function runUp(tx: Queryable, kind: StoreKind, migration: Migration): Promise<void> {
  try {
    if (typeof migration.up === 'function') await migration.up(tx, kind);
    else await tx.exec(typeof migration.up === 'string' ? migration.up : migration.up[kind]);
  } catch (error) {
    throw new PorticoError(
      'migration_failed',
      `migration ${migration.id} (${migration.name}) failed and was rolled back: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

function checkList(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.id !== i + 1) throw new Error(`migrations must be numbered 1, 2, 3, ... in order; found ${m.id} at position ${i + 1}`);
  });
}

/** Forward-only: a database touched by a newer Portico, or with other history, is refused. */
function checkApplied(applied: readonly AppliedMigration[], known: readonly Migration[]): void {
  for (const row of applied) {
    const mine = known.find((m) => m.id === row.id);
    if (!mine) {
      throw new PorticoError(
        'schema_too_new',
        `database schema is at version ${Math.max(...applied.map((a) => a.id))} but this Portico knows migrations up to ${known.length}; run a newer Portico against this database`,
      );
    }
    if (mine.name !== row.name) {
      throw new PorticoError('schema_mismatch', `database migration ${row.id} is '${row.name}' but this Portico expects '${mine.name}'; this database belongs to another installation`);
    }
  }
}
