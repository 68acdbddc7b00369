import type { Migration } from './types.js';

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
  {
    id: 2,
    name: 'store_notifications',
    // Messages between Portico processes sharing the database (store/notifications.ts): on SQLite
    // every message, polled; on PostgreSQL only those too long for a NOTIFY payload.
    up: {
      sqlite: `CREATE TABLE store_notifications (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  channel TEXT NOT NULL,
  origin TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at BIGINT NOT NULL
);`,
      postgres: `CREATE TABLE store_notifications (
  id BIGSERIAL PRIMARY KEY,
  channel TEXT NOT NULL,
  origin TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX store_notifications_created_at ON store_notifications (created_at);`,
    },
  },
  {
    id: 3,
    name: 'store_notifications_packed',
    // A row may carry several messages of one publish (a JSON array of them), so a busy process
    // writes one row per batch of events, not one per event.
    up: 'ALTER TABLE store_notifications ADD COLUMN packed INTEGER NOT NULL DEFAULT 0;',
  },
];
