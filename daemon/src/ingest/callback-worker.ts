import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Component } from '../core/component.js';
import type { Logger } from '../core/logger.js';
import { loggableUrl } from '../core/loggable-url.js';
import type { Store } from '../store/types.js';
import { DEFAULT_RETRY_SCHEDULE, formatRetrySchedule, maxAttempts, type RetrySchedule } from './backoff.js';
import { CallbackSender } from './callback-sender.js';
import { claimDue, recordAndRefill, releaseLeases, type AttemptToRecord, type ClaimedRow, type GroupCommit, type Lease, type RecordedAttempt } from './outbox.js';
import { parseUrl } from '../core/parse-url.js';

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
  /** Waits before each attempt of a round (SERVICE_CALLBACK_RETRY_SCHEDULE); the spec's table when unset. */
  retrySchedule?: RetrySchedule | undefined;
  /** Injectable clock for backoff tests; wall time otherwise. */
  clock?: () => number;
  onDelivery?: (row: ClaimedRow, result: RecordedAttempt) => void;
  name?: string;
  /** false: start() polls nothing; the caller drives `runOnce` (tests with a fake clock). */
  poll?: boolean;
}

/** A lease outlives the request timeout with room to write the result, so a live worker keeps its rows. */
export function leaseDurationMs(requestTimeoutMs: number): number {
  return 2 * requestTimeoutMs + 5_000;
}

/** How long a finished attempt may wait for others to share its transaction. */
const GROUP_WAIT_MS = 2;

interface PendingResult extends AttemptToRecord {
  done: (result: RecordedAttempt | null | Error) => void;
}

/**
 * Drains the outbox: claims due rows, POSTs them concurrently (at most a batch in flight, over
 * one keep-alive pool per receiver origin), and records finished attempts together (group
 * commit) with the claim of the rows that replace them.
 */
export class CallbackWorker implements Component {
  readonly name: string;
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  readonly #opts: CallbackWorkerOptions;
  readonly #clock: () => number;
  readonly #schedule: RetrySchedule;
  #sender: CallbackSender | null = null;
  #running = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  /** Set when stop() gave up waiting: attempts cut short then release their rows. */
  #aborted = false;
  readonly #inFlight = new Set<Promise<void>>();
  /**
   * Slots of claims under way (the polling loop's and a group commit's refill can overlap): each
   * counts the other's, so no more than a batch is in flight, and none waits behind the receiver's
   * connection cap (the batch) with its timer running.
   */
  #reserved = 0;
  #completed: (() => void) | null = null;
  readonly #toRecord: PendingResult[] = [];
  #recording: Promise<void> | null = null;
  #groupTimer: NodeJS.Timeout | null = null;
  /** Monotonic time (performance.now) before which a claim is not worth it: the last one found the due rows exhausted. */
  #drainedUntil = 0;

  constructor(opts: CallbackWorkerOptions) {
    this.#opts = opts;
    this.name = opts.name ?? 'callback-worker';
    this.#clock = opts.clock ?? Date.now;
    this.#schedule = opts.retrySchedule ?? DEFAULT_RETRY_SCHEDULE;
  }

  async start(): Promise<void> {
    let extraCa: string | undefined;
    if (this.#opts.caFile) {
      extraCa = await readFile(this.#opts.caFile, 'utf8').catch((error: unknown) => {
        throw new Error(`SERVICE_CALLBACK_CA_FILE: cannot read ${this.#opts.caFile}: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
    this.#sender = new CallbackSender({ timeoutMs: this.#opts.requestTimeoutMs, allowHosts: this.#opts.allowHosts, extraCa, clock: this.#clock, connectionsPerOrigin: this.#opts.batchSize });
    this.#running = true;
    this.#opts.logger.info('callback_worker_started', {
      worker: this.workerId,
      poll_interval_s: this.#opts.pollIntervalMs / 1000,
      batch: this.#opts.batchSize,
      timeout_s: this.#opts.requestTimeoutMs / 1000,
      retry_schedule: formatRetrySchedule(this.#schedule),
    });
    if (this.#opts.poll !== false) this.#loop = this.#run();
  }

  describe(): string {
    return `${this.workerId}, batch ${this.#opts.batchSize}, poll ${this.#opts.pollIntervalMs / 1000}s, timeout ${this.#opts.requestTimeoutMs / 1000}s, retries ${formatRetrySchedule(this.#schedule)}`;
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.();
    const grace = new Promise<void>((r) => setTimeout(r, this.#opts.stopGraceMs).unref());
    await Promise.race([Promise.all([...this.#inFlight]), grace]);
    this.#aborted = true;
    this.#sender?.abortAll();
    await this.#loop;
    // Aborted attempts release their rows; wait for that (and for deliveries a refill started meanwhile).
    while (this.#inFlight.size > 0 || this.#recording) await Promise.allSettled([...this.#inFlight, this.#recording]);
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
    if (!this.#sender) throw new Error('callback worker not started');
    const lease = this.#newLease();
    this.#reserved += limit;
    try {
      const rows = await claimDue(this.#opts.store(), lease, this.#clock(), this.#leaseUntil(), limit);
      this.#claimed(rows.length, limit);
      return this.#startAll(rows, lease);
    } finally {
      this.#reserved -= limit;
    }
  }

  #newLease(): Lease {
    return { owner: this.workerId, token: randomBytes(12).toString('hex') };
  }

  #leaseUntil(): number {
    return this.#clock() + leaseDurationMs(this.#opts.requestTimeoutMs);
  }

  /** A claim that found fewer due rows than it asked for: the next waits a poll interval. */
  #claimed(count: number, limit: number): void {
    if (count < limit) this.#drainedUntil = performance.now() + this.#opts.pollIntervalMs;
  }

  #startAll(rows: readonly ClaimedRow[], lease: Lease): Array<Promise<void>> {
    const sender = this.#sender!;
    return rows.map((row) => this.#track(this.#deliver(sender, row, lease)));
  }

  /**
   * Polls: claims into the free slots unless the last claim found the due rows exhausted less
   * than a poll interval ago. While deliveries run, each group commit refills the batch as well,
   * so a slow receiver holds one slot, not the whole worker.
   */
  async #run(): Promise<void> {
    while (this.#running) {
      const capacity = this.#opts.batchSize - this.#inFlight.size - this.#reserved;
      const wait = this.#drainedUntil - performance.now();
      if (capacity > 0 && wait <= 0) {
        try {
          await this.#claimAndStart(capacity);
        } catch (error) {
          this.#opts.logger.error('callback worker poll failed', { error });
          this.#drainedUntil = performance.now() + this.#opts.pollIntervalMs;
        }
      } else if (capacity > 0) {
        await this.#sleep(wait);
      } else {
        await this.#nextCompletion();
      }
    }
  }

  /** Resolves when one in-flight delivery finishes (or at stop). */
  #nextCompletion(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#completed = resolve;
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
    return work.finally(() => {
      this.#inFlight.delete(work);
      const completed = this.#completed;
      this.#completed = null;
      completed?.();
    });
  }

  /**
   * Group commit: a result waits for others, up to GROUP_WAIT_MS, unless half a batch is waiting
   * or every delivery in flight is; results that arrive while a write runs go into the next. A
   * transaction costs about as much as writing a dozen rows, and SQLite's are synchronous:
   * without the wait each response would be a transaction of its own.
   */
  #record(item: AttemptToRecord): Promise<RecordedAttempt | null | Error> {
    return new Promise((done) => {
      this.#toRecord.push({ row: item.row, lease: item.lease, outcome: item.outcome, now: item.now, done });
      if (this.#recording) return;
      const waiting = this.#toRecord.length;
      if (waiting >= this.#inFlight.size || waiting >= Math.ceil(this.#opts.batchSize / 2)) {
        this.#recording = this.#flushSoon();
      } else {
        this.#groupTimer ??= setTimeout(() => {
          this.#groupTimer = null;
          this.#recording ??= this.#flushSoon();
        }, GROUP_WAIT_MS);
      }
    });
  }

  /** Flushes once the current event-loop turn has read every response it can. */
  async #flushSoon(): Promise<void> {
    if (this.#groupTimer) clearTimeout(this.#groupTimer);
    this.#groupTimer = null;
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.#flush(this.#opts.store());
  }

  async #flush(store: Store): Promise<void> {
    try {
      while (this.#toRecord.length > 0) {
        const items = this.#toRecord.splice(0, this.#toRecord.length);
        // Rows still owned once these are written: the deliveries in flight, less the ones recorded
        // now, and the rows a claim under way is taking.
        const refill = this.#refilling() ? Math.max(0, this.#opts.batchSize - (this.#inFlight.size - items.length) - this.#reserved) : 0;
        const lease = this.#newLease();
        this.#reserved += refill;
        let commit: GroupCommit;
        try {
          commit = await recordAndRefill(store, items, this.#schedule, refill > 0 ? { lease, now: this.#clock(), leaseUntil: this.#leaseUntil(), limit: refill } : null);
        } finally {
          this.#reserved -= refill;
        }
        const { results, claimed, claimError } = commit;
        if (claimError) this.#opts.logger.error('callback worker poll failed', { error: claimError });
        // A database that fails is polled again after a poll interval, not at once.
        if (claimError || results instanceof Error) this.#drainedUntil = performance.now() + this.#opts.pollIntervalMs;
        else if (refill > 0) this.#claimed(claimed.length, refill);
        if (this.#running) this.#startAll(claimed, lease);
        else await releaseLeases(store, claimed.map((r) => r.id), lease).catch(() => {});
        items.forEach((item, i) => item.done(results instanceof Error ? results : (results[i] ?? null)));
      }
    } finally {
      this.#recording = null;
    }
  }

  /** Group commits claim too while the worker polls (not under `runOnce`) and due rows may be left. */
  #refilling(): boolean {
    return this.#running && this.#opts.poll !== false && performance.now() >= this.#drainedUntil;
  }

  async #deliver(sender: CallbackSender, row: ClaimedRow, lease: Lease): Promise<void> {
    const store = this.#opts.store();
    const outcome = await sender.send(row, this.#clock());
    if (this.#aborted && !outcome.ok) {
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
        attempt: recorded.attempts,
        attempts: `${recorded.attemptsInRound}/${maxAttempts(this.#schedule)}`,
        terminal: recorded.status === 'DEAD',
        // No HTTP answer (refused, timed out): no status, rather than `status=null`.
        ...(outcome.statusCode === null ? {} : { status: outcome.statusCode }),
        error: outcome.error,
        target: callbackTarget(row.callback_url),
      });
    }
    this.#opts.onDelivery?.(row, recorded);
  }
}

/** The callback URL as logs and events show it: no user info, secret-looking query values as `***`. */
export function callbackTarget(url: string): string {
  const parsed = parseUrl(url);
  return parsed === null ? '(not a valid URL)' : loggableUrl(parsed);
}
