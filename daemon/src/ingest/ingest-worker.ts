import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Component } from '../core/component.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../store/types.js';
import { discardUnfinishedParts, runJobKind, type JobOutcome } from './job-kinds.js';
import type { PartLimits } from './csv-table.js';
import { finishJob, type FinishedJob } from './job-store.js';
import type { JobRow } from './records.js';
import type { UploadFiles } from './upload-files.js';
import { PorticoError } from '../core/errors.js';

/** A job whose worker died this many times is failed rather than retried again. */
export const MAX_JOB_ATTEMPTS = 3;

const CLAIM = (skipLocked: boolean) => `UPDATE ingest_jobs SET status = 'RUNNING', attempts = attempts + 1, lease_owner = ?, lease_token = ?, lease_expires_at = ?, updated_at = ?
WHERE ingest_job_id IN (
  SELECT ingest_job_id FROM ingest_jobs
  WHERE status = 'QUEUED' OR (status = 'RUNNING' AND lease_expires_at <= ?)
  ORDER BY created_at, ingest_job_id LIMIT 1${skipLocked ? '\n  FOR UPDATE SKIP LOCKED' : ''}
)
RETURNING *`;

export interface IngestWorkerOptions {
  store: () => Store;
  /** The uploaded files (`<data dir>/uploads`, shared with the processes that take uploads). */
  uploads: UploadFiles;
  /** Where a snapshot's parts end (tests make them small); by default 10,000 rows or about 1 MiB. */
  partLimits?: PartLimits;
  logger: Logger;
  pollIntervalMs: number;
  /** How long a claimed job stays with this worker before another may take it (a crash). */
  leaseMs?: number;
  stopGraceMs: number;
  clock?: () => number;
  poll?: boolean;
  onFinished?: (finished: FinishedJob) => void;
  onStarted?: (job: JobRow) => void;
}

class LeaseLost extends PorticoError {
  constructor(message = 'the job lease was lost') {
    super('lease_lost', message);
  }
}

/** Runs queued jobs one at a time: claim with a lease, run the kind, finish + outbox in one transaction. */
export class IngestWorker implements Component {
  readonly name = 'ingest-worker';
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  readonly #opts: IngestWorkerOptions;
  readonly #clock: () => number;
  #running = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;

  constructor(opts: IngestWorkerOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? Date.now;
  }

  async start(): Promise<void> {
    this.#running = true;
    this.#opts.logger.info('ingest_worker_started', { worker: this.workerId, poll_interval_s: this.#opts.pollIntervalMs / 1000 });
    if (this.#opts.poll !== false) this.#loop = this.#run();
  }

  describe(): string {
    return `${this.workerId}, poll ${this.#opts.pollIntervalMs / 1000}s`;
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.();
    // A job left running past the grace keeps its lease; another worker takes it when the lease ends.
    await Promise.race([this.#loop, new Promise((r) => setTimeout(r, this.#opts.stopGraceMs).unref())]);
  }

  /** Claims and runs one job; resolves with its id, or null when nothing was due. */
  async runOnce(): Promise<string | null> {
    const store = this.#opts.store();
    const now = this.#clock();
    const token = randomBytes(12).toString('hex');
    const [job] = await store.all<JobRow>(CLAIM(store.kind === 'postgres'), [this.workerId, token, now + (this.#opts.leaseMs ?? 5 * 60_000), now, now]);
    if (!job) return null;
    this.#opts.onStarted?.(job);
    await this.#execute(store, job, token);
    return job.ingest_job_id;
  }

  async #execute(store: Store, job: JobRow, token: string): Promise<void> {
    let outcome: JobOutcome;
    // What an earlier run of this job stored and never finished (its worker stopped) goes first.
    await discardUnfinishedParts(store, job.ingest_job_id);
    if (Number(job.attempts) > MAX_JOB_ATTEMPTS) {
      outcome = { status: 'FAILED', result: { error: `the job's worker stopped ${MAX_JOB_ATTEMPTS} times before finishing it; not retried again` } };
    } else {
      try {
        outcome = await runJobKind(store, job, { uploads: this.#opts.uploads, partLimits: this.#opts.partLimits });
      } catch (error) {
        this.#opts.logger.error('ingest job crashed', { job_id: job.ingest_job_id, kind: job.job_kind, error });
        outcome = { status: 'FAILED', result: { error: `internal error while running ${job.job_kind}; the daemon log has the details` } };
      }
    }
    try {
      const finished = await store.transaction(async (tx) => {
        const now = this.#clock();
        const written = outcome.write ? await outcome.write(tx, now) : {};
        const done = await finishJob(tx, job.ingest_job_id, ['RUNNING'], outcome.status, outcome.result, now, { ...written, leaseToken: token });
        // Cancelled meanwhile, or the lease passed to another worker: keep none of this run's writes.
        if (!done) throw new LeaseLost();
        return done;
      });
      this.#opts.logger.info('ingest_job_finished', { job_id: job.ingest_job_id, kind: job.job_kind, status: finished.job.status, callback: finished.deliveryId !== null });
      this.#opts.onFinished?.(finished);
    } catch (error) {
      await this.#discard(store, job, outcome);
      if (error instanceof LeaseLost) {
        this.#opts.logger.info('ingest job result discarded: the job was cancelled or taken over', { job_id: job.ingest_job_id });
        return;
      }
      throw error;
    }
  }

  /** Removes what the run stored before its finish, which was not kept (best effort: the retention pass removes what is left). */
  async #discard(store: Store, job: JobRow, outcome: JobOutcome): Promise<void> {
    try {
      await outcome.discard?.(store);
    } catch (error) {
      this.#opts.logger.warn('ingest job parts not removed; the retention pass removes them', { job_id: job.ingest_job_id, error });
    }
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let ran: string | null = null;
      try {
        ran = await this.runOnce();
      } catch (error) {
        this.#opts.logger.error('ingest worker poll failed', { error });
      }
      if (ran === null && this.#running) await this.#sleep(this.#opts.pollIntervalMs);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }
}
