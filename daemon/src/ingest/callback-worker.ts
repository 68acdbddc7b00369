import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Component } from '../core/component.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../store/types.js';
import { MAX_ATTEMPTS } from './backoff.js';
import { CallbackSender } from './callback-sender.js';
import { claimDue, recordAttempts, releaseLeases, type AttemptToRecord, type Lease, type RecordedAttempt } from './outbox.js';
import type { OutboxRow } from './records.js';

export interface CallbackWorkerOptions {
  store: () => Store;
  logger: Logger;
  pollIntervalMs: number;
  batchSize: number;
  requestTimeoutMs: number;
  allowHosts: ReadonlySet<string>;
  caFile?: string | undefined;
  /** Time a stopping worker lets in-flight attempts finish before aborting and releasing them. */
  stopGraceMs: number;
  /** Injectable clock for backoff tests; wall time otherwise. */
  clock?: () => number;
  onDelivery?: (row: OutboxRow, result: RecordedAttempt) => void;
  name?: string;
  /** false: start() polls nothing; the caller drives `runOnce` (tests with a fake clock). */
  poll?: boolean;
}

/** A lease outlives the request timeout with room to write the result, so a live worker keeps its rows. */
export function leaseDurationMs(requestTimeoutMs: number): number {
  return 2 * requestTimeoutMs + 5_000;
}

/** Drains the outbox: claim due rows, POST them concurrently, record each result under its lease. */
export class CallbackWorker implements Component {
  readonly name: string;
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  readonly #opts: CallbackWorkerOptions;
  readonly #clock: () => number;
  #sender: CallbackSender | null = null;
  #running = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  readonly #abort = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #toRecord: Array<AttemptToRecord & { done: (r: RecordedAttempt | null | Error) => void }> = [];
  #recording = false;

  constructor(opts: CallbackWorkerOptions) {
    this.#opts = opts;
    this.name = opts.name ?? 'callback-worker';
    this.#clock = opts.clock ?? Date.now;
  }

  async start(): Promise<void> {
    let extraCa: string | undefined;
    if (this.#opts.caFile) {
      extraCa = await readFile(this.#opts.caFile, 'utf8').catch((error: unknown) => {
        throw new Error(`SERVICE_CALLBACK_CA_FILE: cannot read ${this.#opts.caFile}: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
    this.#sender = new CallbackSender({ timeoutMs: this.#opts.requestTimeoutMs, allowHosts: this.#opts.allowHosts, extraCa, clock: this.#clock });
    this.#running = true;
    this.#opts.logger.info('callback_worker_started', {
      worker: this.workerId,
      poll_interval_s: this.#opts.pollIntervalMs / 1000,
      batch: this.#opts.batchSize,
      timeout_s: this.#opts.requestTimeoutMs / 1000,
    });
    if (this.#opts.poll !== false) this.#loop = this.#run();
  }

  describe(): string {
    return `${this.workerId}, batch ${this.#opts.batchSize}, poll ${this.#opts.pollIntervalMs / 1000}s, timeout ${this.#opts.requestTimeoutMs / 1000}s`;
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.();
    const grace = new Promise<void>((r) => setTimeout(r, this.#opts.stopGraceMs).unref());
    await Promise.race([Promise.all([...this.#inFlight]), grace]);
    this.#abort.abort();
    await this.#loop;
    // Aborted attempts release their rows; wait for that (and for a claim that raced the stop).
    await Promise.allSettled([...this.#inFlight]);
    await this.#sender?.close();
  }

  /** Claims and delivers one batch; resolves with the number of rows claimed. */
  async runOnce(): Promise<number> {
    const started = await this.#claimAndStart(this.#opts.batchSize);
    await Promise.all(started);
    return started.length;
  }

  /** Claims up to `limit` due rows and starts their deliveries; returns the started deliveries. */
  async #claimAndStart(limit: number): Promise<Array<Promise<void>>> {
    const sender = this.#sender;
    if (!sender) throw new Error('callback worker not started');
    const now = this.#clock();
    const lease: Lease = { owner: this.workerId, token: randomBytes(12).toString('hex') };
    const rows = await claimDue(this.#opts.store(), lease, now, now + leaseDurationMs(this.#opts.requestTimeoutMs), limit);
    return rows.map((row) => this.#track(this.#deliver(sender, row, lease)));
  }

  /**
   * Keeps up to a batch of deliveries in flight: claims again once half the batch has finished,
   * so a slow receiver holds one slot, not the whole worker (refilling per finished row would
   * cost a claim statement per row); sleeps a poll interval when nothing is due.
   */
  async #run(): Promise<void> {
    const refillAt = Math.max(1, Math.floor(this.#opts.batchSize / 2));
    while (this.#running) {
      const capacity = this.#opts.batchSize - this.#inFlight.size;
      let claimed = 0;
      if (capacity >= refillAt || this.#inFlight.size === 0) {
        try {
          claimed = (await this.#claimAndStart(capacity)).length;
        } catch (error) {
          this.#opts.logger.error('callback worker poll failed', { error });
        }
      }
      if (!this.#running) break;
      const drained = capacity >= refillAt || this.#inFlight.size === 0 ? claimed < capacity : false;
      if (drained) await this.#sleep(this.#opts.pollIntervalMs);
      else await this.#nextCompletion();
    }
  }

  /** Resolves when one in-flight delivery finishes (or at stop). */
  #nextCompletion(): Promise<void> {
    if (this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#wake = resolve;
      void Promise.race([...this.#inFlight]).then(resolve, resolve);
    });
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

  #track(work: Promise<void>): Promise<void> {
    this.#inFlight.add(work);
    return work.finally(() => this.#inFlight.delete(work));
  }

  /**
   * Group commit: results that arrive while a write is running go into the next transaction,
   * so a busy worker writes a few transactions per batch instead of one per row (SQLite's
   * single writer is shared with the other worker processes).
   */
  #record(item: AttemptToRecord): Promise<RecordedAttempt | null | Error> {
    return new Promise((done) => {
      this.#toRecord.push({ ...item, done });
      void this.#flush(this.#opts.store());
    });
  }

  async #flush(store: Store): Promise<void> {
    if (this.#recording) return;
    this.#recording = true;
    try {
      while (this.#toRecord.length > 0) {
        const items = this.#toRecord.splice(0, this.#toRecord.length);
        try {
          const results = await recordAttempts(store, items);
          items.forEach((item, i) => item.done(results[i] ?? null));
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          for (const item of items) item.done(failure);
        }
      }
    } finally {
      this.#recording = false;
    }
  }

  async #deliver(sender: CallbackSender, row: OutboxRow, lease: Lease): Promise<void> {
    const store = this.#opts.store();
    const outcome = await sender.send(row, this.#clock(), this.#abort.signal);
    if (this.#abort.signal.aborted && !outcome.ok) {
      await releaseLeases(store, [row.id], lease).catch(() => {});
      return;
    }
    const recorded = await this.#record({ row, lease, outcome, now: this.#clock() });
    if (recorded instanceof Error) {
      this.#opts.logger.error('callback result not recorded; the row is retried after its lease', { id: row.id, job_id: row.ingest_job_id, error: recorded });
      return;
    }
    if (!recorded) {
      this.#opts.logger.warn('callback lease lost before the result was written; another worker owns the row', { id: row.id, job_id: row.ingest_job_id });
      return;
    }
    if (recorded.status === 'DELIVERED') {
      this.#opts.logger.info('callback_delivered', { id: row.id, job_id: row.ingest_job_id, status: outcome.statusCode });
    } else {
      this.#opts.logger.warn('callback_attempt_failed', {
        id: row.id,
        job_id: row.ingest_job_id,
        attempts: `${recorded.attempts}/${MAX_ATTEMPTS}`,
        terminal: recorded.status === 'DEAD',
        status: outcome.statusCode,
        error: outcome.error,
      });
    }
    this.#opts.onDelivery?.(row, recorded);
  }
}
