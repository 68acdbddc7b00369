import { createHash, randomUUID, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Component } from '../core/component.js';
import { PorticoError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { isAlive } from '../core/run-marker.js';
import type { Queryable, Store } from '../store/types.js';

/** The folder of the data dir that holds uploaded files, one per `ingest_files` row: `uploads/<file_id>`. */
export const UPLOADS_DIR_NAME = 'uploads';

const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** `.<random>.<host>.<pid>.part`: an upload still arriving, named for the process receiving it. */
const TEMP_NAME = /^\.[0-9a-f-]{36}\.(.+)\.(\d+)\.part$/;
/** A file without its row is an upload whose transaction never committed, once it is this old. */
const ORPHAN_GRACE_MS = 10 * 60_000;
/** A temporary file nobody wrote to for this long belongs to no live upload, whichever host wrote it. */
const STALE_TEMP_MS = 60 * 60_000;
/**
 * A piece of a file read back: small enough that what is parsed from one (its records, in flight
 * while the piece is checked and typed) dies young. With 1 MiB pieces a worker parsing a 48 MiB
 * CSV peaked at 184 MB RSS, with 64 KiB at 84 MB, and read it faster.
 */
export const READ_PIECE = 64 * 1024;
const QUERY_CHUNK = 200;
/**
 * Names of this process's temporary files still being written, across every UploadFiles of the
 * process (the API's and the retention worker's sweep the same folder): a file named for this
 * host and pid that is not here was left by an earlier process with the same pid (a container
 * restarts as pid 1 under the same hostname).
 */
const stagedHere = new Set<string>();

/** An uploaded file that cannot be read back as it was stored; the message says what to do. */
export class UploadFileError extends PorticoError {
  override name = 'UploadFileError';
  constructor(code: 'upload_missing' | 'upload_changed', message: string) {
    super(code, message);
  }
}

export interface SweepResult {
  /** Temporary files of uploads whose process is gone. */
  temporary: number;
  /** Files without a row (their transaction never committed) or whose row retention purged. */
  orphaned: number;
}

/**
 * Uploaded files in `<data dir>/uploads/`: an upload streams into a temporary file (mode 0600),
 * is synced, and is renamed to its file id in the transaction that creates its job. Every
 * process of one deployment that runs the ingest API, an ingest worker or the retention worker
 * must see the same folder (docs/ingest-callbacks.md, "Uploads").
 */
export class UploadFiles implements Component {
  readonly name = 'uploads';
  #lastSweep: SweepResult | null = null;

  constructor(
    readonly dir: string,
    private readonly opts: { store?: () => Store; logger?: Logger; clock?: () => number } = {},
  ) {}

  /** As a component (in the processes that take uploads): sweeps what a crashed run left. */
  async start(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    if (!this.opts.store) return;
    this.#lastSweep = await this.sweep(this.opts.store());
    if (this.#lastSweep.temporary + this.#lastSweep.orphaned > 0) {
      this.opts.logger?.info('upload_files_swept', { dir: this.dir, temporary_removed: this.#lastSweep.temporary, orphans_removed: this.#lastSweep.orphaned });
    }
  }

  async stop(): Promise<void> {}

  describe(): string {
    return this.dir;
  }

  /** A new upload's temporary file, open for writing. */
  async stage(): Promise<StagedUpload> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const name = `.${randomUUID()}.${hostname()}.${process.pid}.part`;
    // Listed before the file exists, so a sweep never sees it unlisted.
    stagedHere.add(name);
    try {
      return new StagedUpload(this, await open(join(this.dir, name), 'wx', 0o600), name);
    } catch (error) {
      stagedHere.delete(name);
      throw error;
    }
  }

  pathOf(fileId: string): string {
    if (!FILE_ID.test(fileId)) throw new Error(`not a file id: ${fileId}`);
    return join(this.dir, fileId);
  }

  /**
   * The file's bytes, a piece (up to READ_PIECE bytes) at a time, checked against the size and SHA-256
   * recorded with it as they come: a file that changed or went missing throws an
   * UploadFileError (at the latest after its last piece), so what was read of it is not used.
   */
  async *pieces(file: { file_id: string; filename: string; size_bytes: number | string; sha256: string | null }): AsyncGenerator<Buffer> {
    const size = Number(file.size_bytes);
    const hash = createHash('sha256');
    let at = 0;
    try {
      for await (const chunk of createReadStream(this.pathOf(file.file_id), { highWaterMark: READ_PIECE }) as AsyncIterable<Buffer>) {
        if (at + chunk.length > size) throw changed(file.filename, `it is larger than the ${size} bytes uploaded`);
        hash.update(chunk);
        at += chunk.length;
        yield chunk;
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new UploadFileError(
          'upload_missing',
          `source file ${file.filename} is not in ${this.dir} on this machine: every process that runs the ingest API, an ingest worker or the retention worker must share the data dir's uploads folder (docs/ingest-callbacks.md, "Uploads"); upload it again`,
        );
      }
      throw error;
    }
    if (at !== size) throw changed(file.filename, `it has ${at} of the ${size} bytes uploaded`);
    if (file.sha256 !== null && hash.digest('hex') !== file.sha256) throw changed(file.filename, 'its SHA-256 differs from the upload');
  }

  /** Removes files by id (those already gone count as removed); resolves with how many were there. */
  async remove(fileIds: readonly string[]): Promise<number> {
    let removed = 0;
    for (const id of fileIds) if (await unlinkQuietly(this.pathOf(id))) removed += 1;
    return removed;
  }

  /**
   * Removes what crashed uploads left: temporary files of processes that are gone (on this host,
   * including files named for this pid that no upload of this process holds; elsewhere, once
   * stale), files whose row never committed (past a grace for a commit under way) and files whose
   * row retention purged (it crashed between its update and the unlink).
   */
  async sweep(db: Queryable): Promise<SweepResult> {
    const result: SweepResult = { temporary: 0, orphaned: 0 };
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
      throw error;
    }
    const now = (this.opts.clock ?? Date.now)();
    const host = hostname();
    const ids: string[] = [];
    for (const name of names) {
      if (FILE_ID.test(name)) {
        ids.push(name);
        continue;
      }
      const temp = TEMP_NAME.exec(name);
      if (!temp || stagedHere.has(name)) continue;
      const pid = Number(temp[2]);
      const ours = temp[1] === host;
      const age = await ageOf(join(this.dir, name), now);
      if (age === null) continue;
      if ((ours && (pid === process.pid || !isAlive(pid))) || age > STALE_TEMP_MS) {
        if (await unlinkQuietly(join(this.dir, name))) result.temporary += 1;
      }
    }
    for (let i = 0; i < ids.length; i += QUERY_CHUNK) {
      const chunk = ids.slice(i, i + QUERY_CHUNK);
      const rows = await db.all<{ file_id: string; purged_at: number | null }>(`SELECT file_id, purged_at FROM ingest_files WHERE file_id IN (${chunk.map(() => '?').join(', ')})`, chunk);
      const known = new Map(rows.map((r) => [r.file_id, r.purged_at]));
      for (const id of chunk) {
        const path = join(this.dir, id);
        const purged = known.has(id) && known.get(id) !== null;
        if (!purged && known.has(id)) continue;
        if (!purged) {
          const age = await ageOf(path, now);
          if (age === null || age <= ORPHAN_GRACE_MS) continue;
        }
        if (await unlinkQuietly(path)) result.orphaned += 1;
      }
    }
    return result;
  }
}

/** An upload being received: written and hashed as it arrives, then placed under its file id. */
export class StagedUpload {
  #handle: FileHandle | null;
  #path: string;
  /** The temporary file's name while this upload holds it (until placed or discarded). */
  #tempName: string | null;
  readonly #hash: Hash = createHash('sha256');
  #sha256: string | null = null;
  #size = 0;
  #kept = false;

  constructor(
    private readonly files: UploadFiles,
    handle: FileHandle,
    tempName: string,
  ) {
    this.#handle = handle;
    this.#tempName = tempName;
    this.#path = join(files.dir, tempName);
  }

  get size(): number {
    return this.#size;
  }

  /** Hex SHA-256 of the content, once finished. */
  get sha256(): string {
    if (this.#sha256 === null) throw new Error('the upload is not finished');
    return this.#sha256;
  }

  async write(chunk: Buffer): Promise<void> {
    if (!this.#handle) throw new Error('the upload is finished');
    this.#hash.update(chunk);
    this.#size += chunk.length;
    for (let at = 0; at < chunk.length; ) at += (await this.#handle.write(chunk, at, chunk.length - at)).bytesWritten;
  }

  /** Flushes the content to the disk (before its job commits, so a committed job has its file). */
  async finish(): Promise<void> {
    if (!this.#handle) return;
    const handle = this.#handle;
    this.#handle = null;
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
    this.#sha256 = this.#hash.digest('hex');
  }

  /** Renames the file to its id (call inside the transaction that inserts its row). */
  async place(fileId: string): Promise<void> {
    await this.finish();
    const target = this.files.pathOf(fileId);
    await rename(this.#path, target);
    this.#path = target;
    this.#release();
    await syncDirectory(this.files.dir);
  }

  /** Its row committed: the file is the store's now, discard() leaves it. */
  keep(): void {
    this.#kept = true;
  }

  /** Removes the file unless kept: an upload refused, aborted, replayed or whose transaction failed. */
  async discard(): Promise<void> {
    if (this.#kept) return;
    const handle = this.#handle;
    this.#handle = null;
    await handle?.close().catch(() => {});
    try {
      await unlinkQuietly(this.#path);
    } finally {
      // A file that could not be removed is left for the sweep.
      this.#release();
    }
  }

  #release(): void {
    if (this.#tempName !== null) stagedHere.delete(this.#tempName);
    this.#tempName = null;
  }
}

function changed(filename: string, why: string): UploadFileError {
  return new UploadFileError('upload_changed', `source file ${filename} changed on disk since it was uploaded (${why}); upload it again`);
}

async function unlinkQuietly(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

async function ageOf(path: string, now: number): Promise<number | null> {
  try {
    return now - (await stat(path)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** A rename is durable once its directory is synced. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
