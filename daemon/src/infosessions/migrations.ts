import type { Migration } from '../store/types.js';

/** The infosessions area's tables. Append only: never edit or reorder a released migration. */
export const INFOSESSIONS_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'api_keys_and_usage',
    up: `CREATE TABLE infosessions_api_keys (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('active', 'banned', 'revoked')),
  monthly_limit BIGINT,
  created_at BIGINT NOT NULL,
  state_changed_at BIGINT,
  last_used_at BIGINT
);
CREATE TABLE infosessions_key_usage (
  key_id TEXT NOT NULL REFERENCES infosessions_api_keys (id),
  month TEXT NOT NULL,
  requests BIGINT NOT NULL,
  PRIMARY KEY (key_id, month)
);`,
  },
];
