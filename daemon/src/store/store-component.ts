import { hostname } from 'node:os';
import type { Component } from '../core/component.js';
import type { Logger } from '../core/logger.js';
import { migrate } from './migrate.js';
import { openStore, type StoreSettings } from './open-store.js';
import type { MigrationSet, Store } from './types.js';

export interface BootRecord {
  bootId: string;
  version: string;
  mode: string;
}

/** Opens the database, brings its schema up to date and records this boot. */
export class StoreComponent implements Component {
  readonly name = 'store';
  #store: Store | null = null;
  #schemaVersion = 0;

  constructor(
    private readonly settings: StoreSettings,
    /** Every area's tables (main/areas.ts), applied in this order. */
    private readonly migrations: readonly MigrationSet[],
    private readonly boot: BootRecord,
    private readonly logger: Logger,
  ) {}

  get store(): Store {
    if (!this.#store) throw new Error('store is not open');
    return this.#store;
  }

  get schemaVersion(): number {
    return this.#schemaVersion;
  }

  async start(): Promise<void> {
    const store = await openStore(this.settings).catch((error: unknown) => {
      const where = this.settings.databaseUrl ? 'PostgreSQL (PORTICO_DATABASE_URL)' : `SQLite in ${this.settings.dataDir}`;
      throw new Error(`cannot open ${where}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    this.#store = store;
    try {
      this.#schemaVersion = await migrate(store, this.migrations);
      await store.run('INSERT INTO daemon_boots (boot_id, version, mode, pid, hostname, started_at) VALUES (?, ?, ?, ?, ?, ?)', [
        this.boot.bootId,
        this.boot.version,
        this.boot.mode,
        process.pid,
        hostname(),
        Date.now(),
      ]);
    } catch (error) {
      await store.close().catch(() => {});
      this.#store = null;
      throw error;
    }
    this.logger.info('store open', { kind: store.kind, location: store.location, schema_version: this.#schemaVersion });
  }

  describe(): string | null {
    return this.#store ? `${this.#store.kind} ${this.#store.location} (schema ${this.#schemaVersion})` : null;
  }

  async stop(): Promise<void> {
    const store = this.#store;
    if (!store) return;
    await store.run('UPDATE daemon_boots SET stopped_at = ? WHERE boot_id = ?', [Date.now(), this.boot.bootId]).catch((error: unknown) => {
      this.logger.warn('could not record the clean stop', { error });
    });
    await store.close();
    this.#store = null;
  }
}
