/** A statement parameter; an array is a PostgreSQL array (`CAST(? AS TEXT[])`), which SQLite has not. */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array | readonly (string | number | null)[];

/** Statements a store runs. SQL uses `?` placeholders on both databases. */
export interface Queryable {
  all<T extends object>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T extends object>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
  /** Several statements, no parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export type StoreKind = 'sqlite' | 'postgres';

export interface Store extends Queryable {
  readonly kind: StoreKind;
  /** Where the data lives, safe to show: a file path, or a URL without its password. */
  readonly location: string;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** SQL that differs between the two databases. */
export interface DialectSql {
  sqlite: string;
  postgres: string;
}

export interface Migration {
  id: number;
  name: string;
  up: string | DialectSql | ((tx: Queryable, kind: StoreKind) => Promise<void>);
}

/**
 * The migrations of one area of the daemon (core, infosessions, ingest, ...). Each area numbers
 * its own 1, 2, 3, ... so areas never compete for ids; areas apply in the order given.
 */
export interface MigrationSet {
  area: string;
  migrations: readonly Migration[];
}
