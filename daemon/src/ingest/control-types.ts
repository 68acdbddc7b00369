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

/** An operator's action on one delivery: a reset of a DEAD row, or a retry now of a PENDING one. */
export interface DeliveryActionRead {
  actor: string;
  at: string;
  /** Attempts the row had made when the action happened (a reset's new round starts after them). */
  attempts_before: number;
}

/** One line of a delivery's log, oldest first: an attempt, or an operator's action between attempts. */
export type AttemptLogEntry = ({ kind: 'attempt' } & AttemptRead) | ({ kind: 'reset' | 'retry' } & DeliveryActionRead);

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
  /** Attempts of the current round: since the row was written, or since its last reset. */
  attempts_in_round: number;
  /** Attempts a round makes before DEAD, as this daemon's retry schedule says. */
  max_attempts: number;
}

export interface DeliveryDetail extends DeliveryView {
  /** Attempts and operator actions, oldest first; attempt numbers go on across resets. */
  attempt_log: AttemptLogEntry[];
}

/** A job's callback as its detail shows it. */
export type JobDeliveryView = Pick<
  DeliveryView,
  'id' | 'status' | 'attempts' | 'attempts_in_round' | 'max_attempts' | 'next_attempt_at' | 'last_attempt_at' | 'last_status_code' | 'last_error' | 'finished_at'
>;

/** Deliveries per status, over every tenant. */
export type DeliveryCounts = Record<DeliveryStatus, number>;

export interface RetryNowResult {
  id: string;
  /** The audit record of the action (ingest_delivery_resets). */
  resetId: string;
  next_attempt_at: string;
}

export interface JobView extends IngestJobRead {
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  callback: CallbackView | null;
  /** The outbox row of the job's callback, once the job finished with a callback target. */
  delivery: JobDeliveryView | null;
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

