import { handOn } from './notification-handoff.js';
import type { NotificationChannel, NotificationOptions } from './notifications.js';
import type { SqliteStore } from './sqlite-store.js';
import type { Queryable } from './types.js';

/**
 * Rows kept in store_notifications. A row holds one publish (the event relay publishes at most
 * every 50 ms), and listeners poll several times a second, so this is minutes of events.
 */
export const SQLITE_KEPT_NOTIFICATIONS = 2000;
/** Prune after this many of our own inserts (and at open). */
const PRUNE_EVERY = 200;
/** Rows read per poll; more wait for the next one, which follows at once. */
const READ_LIMIT = 100;
/** A publish's messages share a row up to about this many characters; a longer one has a row of its own. */
const PACKED_ROW_CHARS = 64 * 1024;

interface NotificationRow {
  id: number;
  origin: string;
  payload: string;
  /** 1: `payload` is a JSON array of messages; 0: it is one message. */
  packed: number;
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
    const rows = packRows(payloads);
    this.#inserted += rows.length;
    const pruning = this.#inserted >= PRUNE_EVERY;
    if (pruning) this.#inserted = 0;
    await this.#store.transaction(async (tx) => {
      for (const row of rows) {
        await tx.run('INSERT INTO store_notifications (channel, origin, payload, created_at, packed) VALUES (?, ?, ?, ?, 1)', [this.#options.channel, this.#options.origin, JSON.stringify(row), now]);
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
        'SELECT id, origin, payload, packed FROM store_notifications WHERE id > ? AND channel = ? ORDER BY id LIMIT ?',
        [this.#lastId, this.#options.channel, READ_LIMIT],
      );
      for (const row of rows) {
        this.#lastId = row.id;
        if (row.origin === this.#options.origin || this.#closed) continue;
        for (const payload of unpackRow(row)) handOn(this.#options, payload, row.origin);
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

/** A publish's messages in order, grouped into rows of about PACKED_ROW_CHARS at most. */
function packRows(payloads: readonly string[]): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let chars = 0;
  for (const payload of payloads) {
    if (row.length > 0 && chars + payload.length > PACKED_ROW_CHARS) {
      rows.push(row);
      row = [];
      chars = 0;
    }
    row.push(payload);
    chars += payload.length;
  }
  if (row.length > 0) rows.push(row);
  return rows;
}

/** The messages of a row; a packed row that is not an array of strings is skipped (not ours to read). */
function unpackRow(row: NotificationRow): readonly string[] {
  if (row.packed !== 1) return [row.payload];
  try {
    const messages: unknown = JSON.parse(row.payload);
    return Array.isArray(messages) && messages.every((m) => typeof m === 'string') ? messages : [];
  } catch {
    return [];
  }
}
