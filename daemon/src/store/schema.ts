import { INFOSESSIONS_MIGRATIONS } from '../infosessions/migrations.js';
import { INGEST_MIGRATIONS } from '../ingest/migrations.js';
import type { Migration, MigrationSet } from './types.js';

/** The store's own tables. Append only: never edit or reorder a released migration. */
export const CORE_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'daemon_boots',
    up: `CREATE TABLE daemon_boots (
  boot_id TEXT PRIMARY KEY,
  version TEXT NOT NULL,
  mode TEXT NOT NULL,
  pid INTEGER NOT NULL,
  hostname TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  stopped_at BIGINT
);
CREATE INDEX daemon_boots_started_at ON daemon_boots (started_at);`,
  },
];

/**
 * Every area's migrations, applied in this order at start. An area (infosessions, ingest, ...)
 * keeps its list in its own folder and adds one line here.
 */
export const MIGRATION_SETS: readonly MigrationSet[] = [
  { area: 'core', migrations: CORE_MIGRATIONS },
  { area: 'infosessions', migrations: INFOSESSIONS_MIGRATIONS },
  { area: 'ingest', migrations: INGEST_MIGRATIONS },
];
