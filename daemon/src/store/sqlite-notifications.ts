import { handOn } from './notification-handoff.js';
import type { NotificationChannel, NotificationOptions } from './notifications.js';
import type { SqliteStore } from './sqlite-store.js';
import type { Queryable } from './types.js';

/** Rows kept in store_notifications; listeners poll several times a second, so this is minutes of events. */
export const SQLITE_KEPT_NOTIFICATIONS = 2000;
/** Prune after this many of our own inserts (and at open). */
const PRUNE_EVERY = 200;
/** Rows read per poll; more wait for the next one, which follows at once. */
const READ_LIMIT = 500;

interface NotificationRow {
  id: number;
  origin: string;
  payload: string;
}

/**
 * SQLite has no LISTEN: every message is a row in store_notifications and each process polls.
 * The poll is cheap: `PRAGMA data_version` changes only when another connection committed, so
 * an idle database costs no query; only then are the rows after the last one seen read.
 */
export class SqliteNotifications implements NotificationChannel {
  readonly #store: SqliteStore;
  readonly #options: NotificationOptions;
  readonly #pollMs: number;
  #lastId: number;
  #dataVersion: unknown;
  #timer: NodeJS.Timeout | null = null;
  #polling: Promise<void> | null = null;
  #inserted = 0;
  #closed = false;
  /** The timer's last poll failed; told once per outage, through onListenState. */
  #failing = false;

  private constructor(store: SqliteStore, options: NotificationOptions, lastId: number) {
    this.#store = store;
    this.#options = options;
    this.#pollMs = options.pollMs ?? 300;
    this.#lastId = lastId;
    this.#dataVersion = store.pragma('data_version');
  }

  static async open(store: SqliteStore, options: NotificationOptions): Promise<SqliteNotifications> {
    await prune(store);
    // Start after what is there: a new process is told what happens from now on, not history.
    const row = await store.get<{ n: number | null }>('SELECT MAX(id) AS n FROM store_notifications');
    const channel = new SqliteNotifications(store, options, row?.n ?? 0);
    channel.#timer = setInterval(() => channel.#tick(), channel.#pollMs);
    channel.#timer.unref();
    options.onListenState?.({ kind: 'listening' });
    return channel;
  }

  describe(): string {
    return `SQLite: polls every ${this.#pollMs} ms`;
  }

  async publish(payloads: readonly string[]): Promise<void> {
    if (payloads.length === 0 || this.#closed) return;
    const now = Date.now();
    this.#inserted += payloads.length;
    const pruning = this.#inserted >= PRUNE_EVERY;
    if (pruning) this.#inserted = 0;
    await this.#store.transaction(async (tx) => {
      for (const payload of payloads) {
        await tx.run('INSERT INTO store_notifications (channel, origin, payload, created_at) VALUES (?, ?, ?, ?)', [this.#options.channel, this.#options.origin, payload, now]);
      }
      if (pruning) await prune(tx);
    });
  }

  /** Reads messages other processes committed since the last poll; at most one poll runs at a time. */
  poll(): Promise<void> {
    this.#polling ??= this.#poll().finally(() => (this.#polling = null));
    return this.#polling;
  }

  /** A timed poll: a failure (the database busy or closed) is reported once, not thrown into the event loop. */
  #tick(): void {
    this.poll().then(
      () => {
        if (!this.#failing || this.#closed) return;
        this.#failing = false;
        this.#options.onListenState?.({ kind: 'listening' });
      },
      (error: unknown) => {
        if (this.#failing || this.#closed) return;
        this.#failing = true;
        this.#options.onListenState?.({ kind: 'reconnecting', error: error instanceof Error ? error.message : String(error) });
      },
    );
  }

  async #poll(): Promise<void> {
    if (this.#closed) return;
    const version = this.#store.pragma('data_version');
    if (version === this.#dataVersion) return;
    for (;;) {
      const rows = await this.#store.all<NotificationRow>(
        'SELECT id, origin, payload FROM store_notifications WHERE id > ? AND channel = ? ORDER BY id LIMIT ?',
        [this.#lastId, this.#options.channel, READ_LIMIT],
      );
      for (const row of rows) {
        this.#lastId = row.id;
        if (row.origin !== this.#options.origin && !this.#closed) handOn(this.#options, row.payload, row.origin);
      }
      if (rows.length < READ_LIMIT || this.#closed) break;
    }
    // Only once read: after a failed read the next poll reads again from the last row handed on.
    this.#dataVersion = version;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    // A poll failing as the channel closes is no news to the caller.
    await this.#polling?.catch(() => {});
  }
}

/** Keeps the newest rows only, so the table stays small however long the processes run. */
async function prune(store: Queryable): Promise<void> {
  await store.run('DELETE FROM store_notifications WHERE id <= (SELECT MAX(id) FROM store_notifications) - ?', [SQLITE_KEPT_NOTIFICATIONS]);
}
