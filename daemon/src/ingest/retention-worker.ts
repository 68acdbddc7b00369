import type { Component } from '../core/component.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../store/types.js';
import type { UploadFiles } from './upload-files.js';

export interface RetentionWorkerOptions {
  store: () => Store;
  /** The uploaded files (`<data dir>/uploads`): purged files are removed from it. */
  uploads: UploadFiles;
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
  /** Snapshot parts of runs that never finished (their job has finished since, without them). */
  partsRemoved: number;
}

const CHUNK = 500;
const DAY_MS = 24 * 3600_000;

/**
 * Removes DELIVERED outbox rows (and their attempts) older than the retention, and the content
 * of uploaded files whose jobs finished before it (their BLOB, or their file in the data dir).
 * DEAD rows stay for audit and reset.
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
    const pass: RetentionPass = { deliveriesRemoved: 0, attemptsRemoved: 0, filesPurged: 0, partsRemoved: 0 };
    let uploadFilesRemoved = 0;
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
    for (;;) {
      const purged = await this.#purgeFiles(store, cutoff);
      pass.filesPurged += purged.rows;
      // The rows say purged before the files go: a crash in between leaves files the sweep removes.
      uploadFilesRemoved += await this.#opts.uploads.remove(purged.inDataDir);
      if (purged.selected < CHUNK) break;
    }
    const swept = await this.#opts.uploads.sweep(store);
    uploadFilesRemoved += swept.temporary + swept.orphaned;
    // A finished job can no longer write a snapshot row, so its parts that have none are left over.
    const parts = await store.run(
      `DELETE FROM ingest_snapshot_parts
       WHERE NOT EXISTS (SELECT 1 FROM ingest_snapshots s WHERE s.snapshot_id = ingest_snapshot_parts.snapshot_id)
         AND EXISTS (SELECT 1 FROM ingest_jobs j WHERE j.ingest_job_id = ingest_snapshot_parts.ingest_job_id AND j.finished_at IS NOT NULL)`,
    );
    pass.partsRemoved = parts.changes;
    if (pass.deliveriesRemoved + pass.filesPurged + uploadFilesRemoved + pass.partsRemoved > 0) {
      this.#opts.logger.info('retention_pass', {
        deliveries_removed: pass.deliveriesRemoved,
        attempts_removed: pass.attemptsRemoved,
        files_purged: pass.filesPurged,
        upload_files_removed: uploadFilesRemoved,
        snapshot_parts_removed: pass.partsRemoved,
      });
    }
    return pass;
  }

  /**
   * Marks up to CHUNK files purged; says how many, and which of them are files of the data dir. A
   * file is kept while any job that may still read it (its upload job, or a REPARSE of its table) is not finished.
   */
  async #purgeFiles(store: Store, cutoff: number): Promise<{ selected: number; rows: number; inDataDir: string[] }> {
    return store.transaction(async (tx) => {
      const rows = await tx.all<{ file_id: string; storage: string }>(
        `SELECT file_id, storage FROM ingest_files
         WHERE purged_at IS NULL
           AND EXISTS (SELECT 1 FROM ingest_jobs j WHERE j.file_id = ingest_files.file_id AND j.finished_at IS NOT NULL AND j.finished_at < ?)
           AND NOT EXISTS (SELECT 1 FROM ingest_jobs j WHERE j.file_id = ingest_files.file_id AND j.finished_at IS NULL)
           AND NOT EXISTS (SELECT 1 FROM ingest_jobs j JOIN ingest_tables t ON t.table_id = j.table_id WHERE t.file_id = ingest_files.file_id AND j.finished_at IS NULL)
         LIMIT ?`,
        [cutoff, CHUNK],
      );
      if (rows.length === 0) return { selected: 0, rows: 0, inDataDir: [] };
      const ids = rows.map((r) => r.file_id);
      const updated = await tx.run(`UPDATE ingest_files SET content = NULL, purged_at = ? WHERE purged_at IS NULL AND file_id IN (${ids.map(() => '?').join(', ')})`, [this.#clock(), ...ids]);
      return { selected: rows.length, rows: updated.changes, inDataDir: rows.filter((r) => r.storage === 'data_dir').map((r) => r.file_id) };
    });
  }
}
