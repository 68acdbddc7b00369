import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Mutex } from './mutex.js';
import type { Queryable, SqlValue, Store } from './types.js';

export interface SqliteStoreOptions {
  file: string;
  busyTimeoutMs?: number;
}

/**
 * SQLite through better-sqlite3: one connection, WAL, foreign keys on. Calls are synchronous
 * underneath; a mutex keeps a transaction's statements from interleaving with other callers.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly location: string;
  readonly #db: Database.Database;
  readonly #lock: Mutex;
  readonly #direct: Queryable;

  constructor({ file, busyTimeoutMs = 5000 }: SqliteStoreOptions) {
    if (file !== ':memory:') ownerOnly(file);
    this.location = file;
    this.#lock = lockFor(file);
    this.#db = new Database(file, { timeout: busyTimeoutMs });
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('foreign_keys = ON');
    this.#db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    this.#direct = connectionQueries(this.#db);
  }

  /** PRAGMA value, for tests and status. */
  pragma(name: string): unknown {
    return this.#db.pragma(name, { simple: true });
  }

  all<T extends object>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.#lock.run(() => this.#direct.all<T>(sql, params));
  }
  get<T extends object>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.#lock.run(() => this.#direct.get<T>(sql, params));
  }
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.#lock.run(() => this.#direct.run(sql, params));
  }
  exec(sql: string): Promise<void> {
    return this.#lock.run(() => this.#direct.exec(sql));
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#lock.run(async () => {
      // IMMEDIATE takes the write lock up front, so two processes never deadlock upgrading.
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.#direct);
        this.#db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    await this.#lock.run(() => {
      if (!this.#db.open) return;
      this.#db.close();
      if (this.location !== ':memory:') releaseLock(this.location);
    });
  }
}

// A connection blocks the thread while it waits for SQLite's lock, so two connections to one
// file in one process would deadlock: the holder could never run again. They share a mutex.
const fileLocks = new Map<string, { mutex: Mutex; users: number }>();

function lockFor(file: string): Mutex {
  if (file === ':memory:') return new Mutex();
  const key = resolve(file);
  const entry = fileLocks.get(key) ?? { mutex: new Mutex(), users: 0 };
  entry.users += 1;
  fileLocks.set(key, entry);
  return entry.mutex;
}

function releaseLock(file: string): void {
  const key = resolve(file);
  const entry = fileLocks.get(key);
  if (entry && --entry.users === 0) fileLocks.delete(key);
}

/** Prepared statements kept per connection; a busy caller (the callback worker) reuses a few texts all the time. */
const STATEMENT_CACHE = 200;

function connectionQueries(db: Database.Database): Queryable {
  const statements = new Map<string, Database.Statement>();
  // Preparing costs as much as running a small statement; the oldest text goes when the cache is full.
  const prepare = (sql: string): Database.Statement => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (statements.size >= STATEMENT_CACHE) statements.delete(statements.keys().next().value!);
      statements.set(sql, statement);
    }
    return statement;
  };
  return {
    async all<T extends object>(sql: string, params: readonly SqlValue[] = []) {
      return prepare(sql).all(...bind(params)) as T[];
    },
    async get<T extends object>(sql: string, params: readonly SqlValue[] = []) {
      return prepare(sql).get(...bind(params)) as T | undefined;
    },
    async run(sql: string, params: readonly SqlValue[] = []) {
      const result = prepare(sql).run(...bind(params));
      return { changes: result.changes };
    },
    async exec(sql: string) {
      db.exec(sql);
    },
  };
}

/** better-sqlite3 refuses booleans; SQLite has none, so store them as 0/1. */
function bind(params: readonly SqlValue[]): unknown[] {
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

/**
 * The database holds callback secrets and header values: its file is created 0600 before
 * SQLite opens it (SQLite gives the -wal and -shm files the database file's mode), and files
 * left more open by an older version are tightened. A data dir made here is 0700.
 */
function ownerOnly(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path) && statSync(path).mode & 0o077) chmodSync(path, 0o600);
  }
}
