import { PorticoError } from '../core/errors.js';
import type { Migration, MigrationSet, Queryable, Store, StoreKind } from './types.js';

export interface AppliedMigration {
  area: string;
  id: number;
  name: string;
  applied_at: number;
}

// Any constant works; it only has to be the same in every Portico process sharing a database.
const PG_MIGRATION_LOCK = 7_301_455_112;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  area TEXT NOT NULL,
  id INTEGER NOT NULL,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL,
  PRIMARY KEY (area, id)
)`;

/**
 * Applies pending migrations, area by area in id order, each in its own transaction together
 * with its row in schema_migrations, so a crash mid-migration leaves the database as it was.
 * Returns the schema version: the number of migrations applied, over all areas.
 * A bare list is the area `core`.
 */
export async function migrate(store: Store, sets: readonly MigrationSet[] | readonly Migration[]): Promise<number> {
  const areas = normalise(sets);
  for (const set of areas) checkList(set);
  // Under the lock too: PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against a racing twin.
  await store.transaction(async (tx) => {
    await lockMigrations(tx, store.kind);
    await tx.exec(CREATE_TABLE);
  });
  for (const set of areas) {
    for (const migration of set.migrations) {
      await store.transaction(async (tx) => {
        await lockMigrations(tx, store.kind);
        const applied = await appliedMigrations(tx, set.area);
        checkApplied(set, applied);
        if (applied.some((a) => a.id === migration.id)) return;
        await runUp(tx, store.kind, set.area, migration);
        await tx.run('INSERT INTO schema_migrations (area, id, name, applied_at) VALUES (?, ?, ?, ?)', [set.area, migration.id, migration.name, Date.now()]);
      });
    }
    if (set.migrations.length === 0) checkApplied(set, await appliedMigrations(store, set.area));
  }
  return schemaVersion(store);
}

export async function appliedMigrations(db: Queryable, area?: string): Promise<AppliedMigration[]> {
  if (area === undefined) return db.all<AppliedMigration>('SELECT area, id, name, applied_at FROM schema_migrations ORDER BY area, id');
  return db.all<AppliedMigration>('SELECT area, id, name, applied_at FROM schema_migrations WHERE area = ? ORDER BY id', [area]);
}

export async function schemaVersion(db: Queryable): Promise<number> {
  const row = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM schema_migrations');
  return row?.n ?? 0;
}

function normalise(sets: readonly MigrationSet[] | readonly Migration[]): readonly MigrationSet[] {
  if (sets.length > 0 && 'up' in sets[0]!) return [{ area: 'core', migrations: sets as readonly Migration[] }];
  const list = sets as readonly MigrationSet[];
  const seen = new Set<string>();
  for (const set of list) {
    if (seen.has(set.area)) throw new Error(`migration area '${set.area}' listed twice`);
    seen.add(set.area);
  }
  return list;
}

/** SQLite's BEGIN IMMEDIATE already excludes other writers; PostgreSQL needs an explicit lock. */
async function lockMigrations(tx: Queryable, kind: StoreKind): Promise<void> {
  if (kind === 'postgres') await tx.get('SELECT pg_advisory_xact_lock(?)', [PG_MIGRATION_LOCK]);
}

async function runUp(tx: Queryable, kind: StoreKind, area: string, migration: Migration): Promise<void> {
  try {
    if (typeof migration.up === 'function') await migration.up(tx, kind);
    else await tx.exec(typeof migration.up === 'string' ? migration.up : migration.up[kind]);
  } catch (error) {
    throw new PorticoError(
      'migration_failed',
      `migration ${area}/${migration.id} (${migration.name}) failed and was rolled back: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

function checkList({ area, migrations }: MigrationSet): void {
  migrations.forEach((m, i) => {
    if (m.id !== i + 1) throw new Error(`migrations of area '${area}' must be numbered 1, 2, 3, ... in order; found ${m.id} at position ${i + 1}`);
  });
}

/** Forward-only: a database touched by a newer Portico, or with other history, is refused. */
function checkApplied({ area, migrations }: MigrationSet, applied: readonly AppliedMigration[]): void {
  for (const row of applied) {
    const mine = migrations.find((m) => m.id === row.id);
    if (!mine) {
      throw new PorticoError(
        'schema_too_new',
        `database schema of '${area}' is at version ${Math.max(...applied.map((a) => a.id))} but this Portico knows migrations up to ${migrations.length}; run a newer Portico against this database`,
      );
    }
    if (mine.name !== row.name) {
      throw new PorticoError('schema_mismatch', `database migration ${area}/${row.id} is '${row.name}' but this Portico expects '${mine.name}'; this database belongs to another installation`);
    }
  }
}
