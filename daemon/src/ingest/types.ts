/** The ingest area's domain types (plain data). */

export const JOB_KINDS = ['PARSE_AND_INGEST', 'REPARSE', 'SAMPLE_REFRESH', 'DESCRIBE_PASS', 'RELATION_PASS'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
/** Kinds `POST /api/v1/ingest-jobs` creates; PARSE_AND_INGEST comes from the upload route. */
export const API_JOB_KINDS = ['REPARSE', 'SAMPLE_REFRESH', 'DESCRIBE_PASS', 'RELATION_PASS'] as const;

export const JOB_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type TerminalStatus = 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'DEAD'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type CallbackEvent = 'ingest.succeeded' | 'ingest.failed';

/** A resolved callback target. The secret never leaves the store except to sign. */
export interface CallbackConfig {
  url: string;
  secret: string | null;
  headers: Record<string, string>;
}

/** Who is asking: every read and write of the API is scoped to both. */
export interface Scope {
  tenantId: string;
  workspaceId: string;
}

/** IngestJobRead: the API's job record and the webhook body. */
export interface IngestJobRead {
  ingest_job_id: string;
  tenant_id: string;
  workspace_id: string;
  dataset_id: string;
  table_id: string | null;
  file_id: string | null;
  snapshot_id: string | null;
  job_kind: JobKind;
  status: JobStatus;
  attempts: number;
  request_json: Record<string, unknown>;
  result_json: Record<string, unknown>;
}

/** CallbackDeliveryRead: one outbox row as the API shows it. */
export interface CallbackDeliveryRead {
  id: string;
  ingest_job_id: string;
  callback_url: string;
  event_type: CallbackEvent;
  status: DeliveryStatus;
  attempts: number;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string;
  created_at: string;
  finished_at: string | null;
}

export interface DatasetRead {
  dataset_id: string;
  tenant_id: string;
  workspace_id: string;
  name: string;
  created_at: string;
}

export function isTerminal(status: JobStatus): status is TerminalStatus {
  return status === 'SUCCEEDED' || status === 'FAILED' || status === 'CANCELLED';
}

/** CANCELLED has no event of its own: it is a failure to the receiver (body says CANCELLED). */
export function eventFor(status: TerminalStatus): CallbackEvent {
  return status === 'SUCCEEDED' ? 'ingest.succeeded' : 'ingest.failed';
}
