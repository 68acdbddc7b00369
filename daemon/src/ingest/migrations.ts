import type { Migration } from '../store/types.js';

/**
 * The ingest area's tables. Append only: never edit or reorder a released migration.
 * Times are BIGINT epoch milliseconds; JSON is stored as TEXT on both databases.
 */
export const INGEST_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'datasets_files_jobs',
    up: {
      sqlite: datasetsFilesJobs('BLOB'),
      postgres: datasetsFilesJobs('BYTEA'),
    },
  },
  {
    id: 2,
    name: 'callback_outbox',
    up: `CREATE TABLE ingest_callback_outbox (
  id TEXT PRIMARY KEY,
  ingest_job_id TEXT NOT NULL REFERENCES ingest_jobs (ingest_job_id),
  tenant_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  callback_url TEXT NOT NULL,
  callback_secret TEXT,
  callback_headers TEXT NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  last_attempt_at BIGINT,
  last_status_code INTEGER,
  last_error TEXT,
  next_attempt_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  finished_at BIGINT,
  lease_owner TEXT,
  lease_token TEXT,
  lease_expires_at BIGINT,
  UNIQUE (ingest_job_id, event_type)
);
CREATE INDEX ingest_callback_outbox_due ON ingest_callback_outbox (status, next_attempt_at);
CREATE INDEX ingest_callback_outbox_finished ON ingest_callback_outbox (status, finished_at);
CREATE TABLE ingest_callback_attempts (
  id TEXT PRIMARY KEY,
  delivery_id TEXT NOT NULL REFERENCES ingest_callback_outbox (id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  worker TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  response_body TEXT
);
CREATE INDEX ingest_callback_attempts_delivery ON ingest_callback_attempts (delivery_id, attempt);
CREATE TABLE ingest_delivery_resets (
  id TEXT PRIMARY KEY,
  actor TEXT NOT NULL,
  at BIGINT NOT NULL,
  selector TEXT NOT NULL,
  count INTEGER NOT NULL
);`,
  },
  {
    id: 3,
    name: 'idempotency_keys',
    // A repeated Idempotency-Key finds the job its first request created (per tenant and workspace).
    up: `CREATE TABLE ingest_idempotency_keys (
  tenant_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  ingest_job_id TEXT NOT NULL REFERENCES ingest_jobs (ingest_job_id),
  created_at BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, workspace_id, idempotency_key)
);`,
  },
  {
    id: 4,
    name: 'attempt_rounds_and_operator_actions',
    // `attempts` counts every attempt of a row (numbering goes on across resets); a round of the
    // retry schedule starts at `attempts_before_reset`. Operator actions (reset, retry now) are
    // recorded per row, so a delivery's log can say who did what when. Rows reset before this
    // migration get their counts, and their attempts numbers in time order, from their attempt rows.
    up: `ALTER TABLE ingest_callback_outbox ADD COLUMN attempts_before_reset INTEGER NOT NULL DEFAULT 0;
UPDATE ingest_callback_outbox SET attempts_before_reset =
  (SELECT COUNT(*) FROM ingest_callback_attempts a WHERE a.delivery_id = ingest_callback_outbox.id) - attempts
WHERE (SELECT COUNT(*) FROM ingest_callback_attempts a WHERE a.delivery_id = ingest_callback_outbox.id) > attempts;
UPDATE ingest_callback_attempts SET attempt = (
  SELECT COUNT(*) FROM ingest_callback_attempts b
  WHERE b.delivery_id = ingest_callback_attempts.delivery_id
    AND (b.started_at < ingest_callback_attempts.started_at OR (b.started_at = ingest_callback_attempts.started_at AND b.id <= ingest_callback_attempts.id)))
WHERE delivery_id IN (SELECT id FROM ingest_callback_outbox WHERE attempts_before_reset > 0);
UPDATE ingest_callback_outbox SET attempts = attempts + attempts_before_reset WHERE attempts_before_reset > 0;
ALTER TABLE ingest_delivery_resets ADD COLUMN action TEXT NOT NULL DEFAULT 'reset';
CREATE TABLE ingest_delivery_reset_rows (
  reset_id TEXT NOT NULL REFERENCES ingest_delivery_resets (id),
  delivery_id TEXT NOT NULL REFERENCES ingest_callback_outbox (id) ON DELETE CASCADE,
  attempts_before INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, reset_id)
);`,
  },
  {
    id: 5,
    name: 'upload_files_in_data_dir',
    // Uploads stream to <data dir>/uploads/<file_id> (`data_dir`) instead of a BLOB (`store`, the
    // rows before this migration keep theirs); the SHA-256 lets a worker refuse a file that changed.
    up: `ALTER TABLE ingest_files ADD COLUMN storage TEXT NOT NULL DEFAULT 'store';
ALTER TABLE ingest_files ADD COLUMN sha256 TEXT;`,
  },
  {
    id: 6,
    name: 'snapshot_parts',
    // A snapshot's rows are stored in parts (about 1 MiB of JSON each), written while the file is
    // read, so no process holds a whole table; `part_count` says how many (NULL: a snapshot from
    // before, its rows in `rows_json`). A part belongs to its snapshot once the snapshot's row is
    // written; parts without one are a run that did not finish, removed by `ingest_job_id`.
    up: `ALTER TABLE ingest_snapshots ADD COLUMN part_count INTEGER;
CREATE TABLE ingest_snapshot_parts (
  snapshot_id TEXT NOT NULL,
  part_no INTEGER NOT NULL,
  ingest_job_id TEXT NOT NULL,
  row_count INTEGER NOT NULL,
  rows_json TEXT NOT NULL,
  PRIMARY KEY (snapshot_id, part_no)
);
CREATE INDEX ingest_snapshot_parts_job ON ingest_snapshot_parts (ingest_job_id);`,
  },
];

function datasetsFilesJobs(blob: string): string {
  return `CREATE TABLE ingest_datasets (
  dataset_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX ingest_datasets_scope ON ingest_datasets (tenant_id, workspace_id);
CREATE TABLE ingest_files (
  file_id TEXT PRIMARY KEY,
  dataset_id TEXT NOT NULL REFERENCES ingest_datasets (dataset_id),
  filename TEXT NOT NULL,
  content_type TEXT,
  size_bytes BIGINT NOT NULL,
  content ${blob},
  created_at BIGINT NOT NULL,
  purged_at BIGINT
);
CREATE TABLE ingest_tables (
  table_id TEXT PRIMARY KEY,
  dataset_id TEXT NOT NULL REFERENCES ingest_datasets (dataset_id),
  file_id TEXT REFERENCES ingest_files (file_id),
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX ingest_tables_dataset ON ingest_tables (dataset_id);
CREATE TABLE ingest_snapshots (
  snapshot_id TEXT PRIMARY KEY,
  table_id TEXT NOT NULL REFERENCES ingest_tables (table_id),
  columns_json TEXT NOT NULL,
  rows_json TEXT NOT NULL,
  row_count INTEGER NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX ingest_snapshots_table ON ingest_snapshots (table_id, created_at);
CREATE TABLE ingest_jobs (
  ingest_job_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  dataset_id TEXT NOT NULL REFERENCES ingest_datasets (dataset_id),
  table_id TEXT,
  file_id TEXT,
  snapshot_id TEXT,
  job_kind TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  request_json TEXT NOT NULL,
  result_json TEXT NOT NULL,
  callback_url TEXT,
  callback_secret TEXT,
  callback_headers TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  finished_at BIGINT,
  lease_owner TEXT,
  lease_token TEXT,
  lease_expires_at BIGINT
);
CREATE INDEX ingest_jobs_scope ON ingest_jobs (tenant_id, workspace_id, created_at);
CREATE INDEX ingest_jobs_due ON ingest_jobs (status, created_at);`;
}
