import pg from 'pg';
import { toPostgresPlaceholders } from './placeholders.js';
import type { Queryable, SqlValue, Store } from './types.js';

export interface PostgresStoreOptions {
  url: string;
  /** Schema to work in (created if missing); tests use one each. */
  schema?: string;
  maxConnections?: number;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** PostgreSQL through a pg pool. BIGINT and COUNT come back as numbers, as they do from SQLite. */
export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly location: string;
  readonly #pool: pg.Pool;
  readonly #direct: Queryable;
  readonly #clientConfig: pg.ClientConfig;

  private constructor(pool: pg.Pool, location: string, clientConfig: pg.ClientConfig) {
    this.#pool = pool;
    this.location = location;
    this.#direct = clientQueries(pool);
    this.#clientConfig = clientConfig;
  }

  static async connect({ url, schema, maxConnections = 10 }: PostgresStoreOptions): Promise<PostgresStore> {
    const clientConfig: pg.ClientConfig = {
      connectionString: url,
      connectionTimeoutMillis: 5000,
      ...(schema ? { options: `-c search_path=${quoteIdent(schema)}` } : {}),
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
          if (oid === INT8_OID || oid === NUMERIC_OID) return (v: string) => Number(v);
          return pg.types.getTypeParser(oid, format);
        }) as typeof pg.types.getTypeParser,
      },
    };
    const pool = new pg.Pool({ ...clientConfig, max: maxConnections });
    // An idle client that loses its server must not crash the daemon; the next query reconnects.
    pool.on('error', () => {});
    const store = new PostgresStore(pool, safeLocation(url, schema), clientConfig);
    try {
      if (schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      else await pool.query('SELECT 1');
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
    return store;
  }

  all<T extends object>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.#direct.all<T>(sql, params);
  }
  get<T extends object>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.#direct.get<T>(sql, params);
  }
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.#direct.run(sql, params);
  }
  exec(sql: string): Promise<void> {
    return this.#direct.exec(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(clientQueries(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * A connection of its own, outside the pool, with the pool's settings (schema, number types):
   * for LISTEN, which must keep one session open. The caller connects and ends it.
   */
  newClient(): pg.Client {
    return new pg.Client(this.#clientConfig);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}

type PgRunner = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

function clientQueries(runner: PgRunner): Queryable {
  const query = async (sql: string, params: readonly SqlValue[] = []) =>
    runner.query(toPostgresPlaceholders(sql), params.map((p) => (typeof p === 'bigint' ? p.toString() : p)) as unknown[]);
  return {
    async all<T extends object>(sql: string, params?: readonly SqlValue[]) {
      return (await query(sql, params)).rows as T[];
    },
    async get<T extends object>(sql: string, params?: readonly SqlValue[]) {
      return (await query(sql, params)).rows[0] as T | undefined;
    },
    async run(sql: string, params?: readonly SqlValue[]) {
      return { changes: (await query(sql, params)).rowCount ?? 0 };
    },
    async exec(sql: string) {
      await runner.query(sql);
    },
  };
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The URL with any password replaced, for status and logs. */
export function safeLocation(url: string, schema?: string): string {
  let shown = url;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    shown = parsed.toString();
  } catch {
    shown = url.replace(/:[^:@/]*@/, ':***@');
  }
  return schema ? `${shown} (schema ${schema})` : shown;
}
