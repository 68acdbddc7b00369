import type { CallbackDeliveryRead, CallbackEvent, DatasetRead, DeliveryStatus, IngestJobRead } from './types.js';

/** ingest_jobs as stored: the API record with its JSON columns as text, plus what the API never shows. */
export interface JobRow extends Omit<IngestJobRead, 'request_json' | 'result_json'> {
  request_json: string;
  result_json: string;
  callback_url: string | null;
  callback_secret: string | null;
  callback_headers: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  lease_owner: string | null;
  lease_token: string | null;
  lease_expires_at: number | null;
}

/** ingest_callback_outbox as stored. */
export interface OutboxRow {
  id: string;
  ingest_job_id: string;
  tenant_id: string;
  workspace_id: string;
  callback_url: string;
  callback_secret: string | null;
  callback_headers: string;
  event_type: CallbackEvent;
  payload: string;
  status: DeliveryStatus;
  /** Every attempt made, across resets (the attempt log's numbering). */
  attempts: number;
  /** `attempts` at the last reset: the current round of the retry schedule starts after it. */
  attempts_before_reset: number;
  last_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number;
  created_at: number;
  finished_at: number | null;
  lease_owner: string | null;
  lease_token: string | null;
  lease_expires_at: number | null;
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  attempt: number;
  worker: string;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
}

export interface DatasetRow {
  dataset_id: string;
  tenant_id: string;
  workspace_id: string;
  name: string;
  created_at: number;
}

export function jobRead(row: JobRow): IngestJobRead {
  return {
    ingest_job_id: row.ingest_job_id,
    tenant_id: row.tenant_id,
    workspace_id: row.workspace_id,
    dataset_id: row.dataset_id,
    table_id: row.table_id,
    file_id: row.file_id,
    snapshot_id: row.snapshot_id,
    job_kind: row.job_kind,
    status: row.status,
    attempts: Number(row.attempts),
    request_json: parseObject(row.request_json),
    result_json: parseObject(row.result_json),
  };
}

export function deliveryRead(row: OutboxRow): CallbackDeliveryRead {
  return {
    id: row.id,
    ingest_job_id: row.ingest_job_id,
    callback_url: row.callback_url,
    event_type: row.event_type,
    status: row.status,
    attempts: Number(row.attempts),
    last_attempt_at: iso(row.last_attempt_at),
    last_status_code: row.last_status_code === null ? null : Number(row.last_status_code),
    last_error: row.last_error,
    next_attempt_at: iso(row.next_attempt_at)!,
    created_at: iso(row.created_at)!,
    finished_at: iso(row.finished_at),
  };
}

export function datasetRead(row: DatasetRow): DatasetRead {
  return { dataset_id: row.dataset_id, tenant_id: row.tenant_id, workspace_id: row.workspace_id, name: row.name, created_at: iso(row.created_at)! };
}

export function iso(ms: number | null): string | null {
  return ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
}

function parseObject(text: string): Record<string, unknown> {
  const value = JSON.parse(text) as unknown;
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
