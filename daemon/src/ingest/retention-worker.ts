import type { Component } from '../core/component.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../store/types.js';

export interface RetentionWorkerOptions {
  store: () => Store;
  logger: Logger;
  retentionDays: number;
  intervalMs: number;
  clock?: () => number;
  poll?: boolean;
}

export interface RetentionPass {
  deliveriesRemoved: number;
  attemptsRemoved: number;
  filesPurged: number;
}

const CHUNK = 500;
const DAY_MS = 24 * 3600_000;

/**
 * Removes DELIVERED outbox rows (and their attempts) older than the retention, and the content
 * of uploaded files whose jobs finished before it. DEAD rows stay for audit and reset.
 */
export class RetentionWorker implements Component {
  readonly name = 'retention-worker';
  readonly #opts: RetentionWorkerOptions;
  readonly #clock: () => number;
  #timer: NodeJS.Timeout | null = null;
  #pass: Promise<unknown> | null = null;

  constructor(opts: RetentionWorkerOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? Date.now;
  }

  async start(): Promise<void> {
    this.#opts.logger.info('retention_worker_started', { retention_days: this.#opts.retentionDays, interval_s: this.#opts.intervalMs / 1000 });
    if (this.#opts.poll === false) return;
    const tick = () => {
      this.#pass = this.runOnce()
        .catch((error: unknown) => this.#opts.logger.error('retention pass failed', { error }))
        .finally(() => {
          this.#pass = null;
          if (this.#timer) this.#timer = setTimeout(tick, this.#opts.intervalMs);
        });
    };
    this.#timer = setTimeout(tick, 0);
  }

  describe(): string {
    return `keeps ${this.#opts.retentionDays} days, every ${this.#opts.intervalMs / 1000}s`;
  }

  async stop(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#pass;
  }

  async runOnce(): Promise<RetentionPass> {
    const store = this.#opts.store();
    const cutoff = this.#clock() - this.#opts.retentionDays * DAY_MS;
    const pass: RetentionPass = { deliveriesRemoved: 0, attemptsRemoved: 0, filesPurged: 0 };
    for (;;) {
      const removed = await store.transaction(async (tx) => {
        const ids = (await tx.all<{ id: string }>("SELECT id FROM ingest_callback_outbox WHERE status = 'DELIVERED' AND finished_at < ? LIMIT ?", [cutoff, CHUNK])).map((r) => r.id);
        if (ids.length === 0) return { rows: 0, attempts: 0 };
        const list = ids.map(() => '?').join(', ');
        const attempts = await tx.run(`DELETE FROM ingest_callback_attempts WHERE delivery_id IN (${list})`, ids);
        const rows = await tx.run(`DELETE FROM ingest_callback_outbox WHERE status = 'DELIVERED' AND id IN (${list})`, ids);
        return { rows: rows.changes, attempts: attempts.changes };
      });
      pass.deliveriesRemoved += removed.rows;
      pass.attemptsRemoved += removed.attempts;
      if (removed.rows < CHUNK) break;
    }
    const now = this.#clock();
    // A file is kept while any job that may still read it (its upload job, or a REPARSE of its table) is not finished.
    const purged = await store.run(
      `UPDATE ingest_files SET content = NULL, purged_at = ?
       WHERE content IS NOT NULL
         AND EXISTS (SELECT 1 FROM ingest_jobs j WHERE j.file_id = ingest_files.file_id AND j.finished_at IS NOT NULL AND j.finished_at < ?)
         AND NOT EXISTS (SELECT 1 FROM ingest_jobs j WHERE j.file_id = ingest_files.file_id AND j.finished_at IS NULL)
         AND NOT EXISTS (SELECT 1 FROM ingest_jobs j JOIN ingest_tables t ON t.table_id = j.table_id WHERE t.file_id = ingest_files.file_id AND j.finished_at IS NULL)`,
      [now, cutoff],
    );
    pass.filesPurged = purged.changes;
    if (pass.deliveriesRemoved + pass.filesPurged > 0) this.#opts.logger.info('retention_pass', { deliveries_removed: pass.deliveriesRemoved, attempts_removed: pass.attemptsRemoved, files_purged: pass.filesPurged });
    return pass;
  }
}
