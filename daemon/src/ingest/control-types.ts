// Types of the jobs.* and deliveries.* control API, shared with the consoles: plain data only.
import type { CallbackDeliveryRead, DeliveryStatus, IngestJobRead, JobKind, JobStatus } from './types.js';

export type { CallbackDeliveryRead, CallbackEvent, DeliveryStatus, IngestJobRead, JobKind, JobStatus } from './types.js';

export interface AttemptRead {
  attempt: number;
  worker: string;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  /** First 2 KiB of the receiver's answer. */
  response_body: string | null;
}

/** A callback as operators see it: the secret and header values are never shown. */
export interface CallbackView {
  url: string;
  secret: '***' | null;
  headers: Record<string, '***'>;
}

export interface DeliveryView extends CallbackDeliveryRead {
  tenant_id: string;
  workspace_id: string;
  signed: boolean;
  headers: Record<string, '***'>;
}

export interface DeliveryDetail extends DeliveryView {
  attempt_log: AttemptRead[];
}

export interface JobView extends IngestJobRead {
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  callback: CallbackView | null;
}

export interface DeliverySelector {
  ids?: string[] | undefined;
  jobId?: string | undefined;
  url?: string | undefined;
  tenantId?: string | undefined;
  /** Must be true to select every DEAD row (an empty selector otherwise refuses). */
  all?: boolean | undefined;
}

export interface JobListInput {
  status?: JobStatus | undefined;
  jobKind?: JobKind | undefined;
  datasetId?: string | undefined;
  tenantId?: string | undefined;
  limit: number;
  offset: number;
}

export interface DeliveryListInput {
  status?: DeliveryStatus | undefined;
  jobId?: string | undefined;
  url?: string | undefined;
  tenantId?: string | undefined;
  limit: number;
  offset: number;
}

