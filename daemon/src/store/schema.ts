import type { Migration } from './types.js';

/** Every migration Portico has, in order. Append only: never edit or reorder a released one. */
export const MIGRATIONS: readonly Migration[] = [
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
