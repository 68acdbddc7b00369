import { createHash } from 'node:crypto';
import type pg from 'pg';
import { z } from 'zod';
import { handOn } from './notification-handoff.js';
import type { NotificationChannel, NotificationOptions } from './notifications.js';
import { quoteIdent, type PostgresStore } from './postgres-store.js';

/** NOTIFY payloads must stay under 8000 bytes; past this the message goes in a row and the NOTIFY names it. */
export const MAX_NOTIFY_BYTES = 7900;
/** Rows of long messages are fetched at once by the listeners; an hour later nobody needs them. */
const LONG_MESSAGE_KEEP_MS = 3600_000;
const RECONNECT_FIRST_MS = 250;
const RECONNECT_MAX_MS = 5000;

/**
 * What travels in a NOTIFY: the sender, a sequence (identical payloads in one transaction would
 * be folded into one), and the messages of a publish that fit together in one NOTIFY (`ps`) or
 * the id of the row holding one too long for it (`r`). `p`, one message, is what Portico sent
 * before batches shared a NOTIFY; a daemon started before an upgrade may still send it.
 */
const Envelope = z.union([
  z.object({ o: z.string(), s: z.number(), ps: z.array(z.string()) }),
  z.object({ o: z.string(), s: z.number(), p: z.string() }),
  z.object({ o: z.string(), s: z.number(), r: z.number().int() }),
]);
type Envelope = z.infer<typeof Envelope>;

/**
 * LISTEN/NOTIFY: publishing is one `pg_notify` statement per batch through the pool (delivered at
 * commit, in order); listening holds a dedicated session that reconnects by itself (250 ms
 * doubling to 5 s). NOTIFY is database-wide, so the channel name carries a hash of the database
 * and schema: daemons in other schemas of the same database do not hear each other.
 */
export class PostgresNotifications implements NotificationChannel {
  readonly #store: PostgresStore;
  readonly #options: NotificationOptions;
  readonly #channel: string;
  #client: pg.Client | null = null;
  #seq = 0;
  #closed = false;
  #reconnectMs = RECONNECT_FIRST_MS;
  #reconnectTimer: NodeJS.Timeout | null = null;
  /** Messages are handed on one after another, so a long one fetched from its row keeps its place. */
  #delivering: Promise<void> = Promise.resolve();

  private constructor(store: PostgresStore, options: NotificationOptions, channel: string) {
    this.#store = store;
    this.#options = options;
    this.#channel = channel;
  }

  static async open(store: PostgresStore, options: NotificationOptions): Promise<PostgresNotifications> {
    const where = await store.get<{ db: string; schema: string | null }>('SELECT current_database() AS db, current_schema() AS schema');
    const hash = createHash('sha256').update(`${where?.db ?? ''}.${where?.schema ?? ''}`).digest('hex').slice(0, 16);
    const channel = new PostgresNotifications(store, options, `portico_${options.channel}_${hash}`);
    await channel.#listen();
    return channel;
  }

  describe(): string {
    return `PostgreSQL: LISTEN ${this.#channel}`;
  }

  async publish(payloads: readonly string[]): Promise<void> {
    if (payloads.length === 0 || this.#closed) return;
    const now = Date.now();
    await this.#store.transaction(async (tx) => {
      const envelopes: string[] = [];
      let pruned = false;
      for (const part of this.#pack(payloads)) {
        if (typeof part !== 'string') {
          envelopes.push(part.envelope);
          continue;
        }
        if (!pruned) {
          await tx.run('DELETE FROM store_notifications WHERE created_at < ?', [now - LONG_MESSAGE_KEEP_MS]);
          pruned = true;
        }
        const row = await tx.get<{ id: number }>('INSERT INTO store_notifications (channel, origin, payload, created_at) VALUES (?, ?, ?, ?) RETURNING id', [this.#options.channel, this.#options.origin, part, now]);
        envelopes.push(this.#envelope({ r: row!.id }));
      }
      await tx.get('SELECT COUNT(pg_notify(?, e.x)) AS n FROM unnest(?::text[]) WITH ORDINALITY AS e(x, n)', [this.#channel, toTextArray(envelopes)]);
    });
  }

  /**
   * The payloads in order as NOTIFY envelopes, as many to an envelope as fit in MAX_NOTIFY_BYTES,
   * and as themselves (for a row) where one alone does not fit.
   */
  #pack(payloads: readonly string[]): Array<{ envelope: string } | string> {
    const parts: Array<{ envelope: string } | string> = [];
    // Room for messages: the envelope without them is the origin, the largest sequence and the JSON around them.
    const room = MAX_NOTIFY_BYTES - Buffer.byteLength(JSON.stringify({ o: this.#options.origin, s: Number.MAX_SAFE_INTEGER, ps: [] }));
    let batch: string[] = [];
    let bytes = 0;
    const close = () => {
      if (batch.length > 0) parts.push({ envelope: this.#envelope({ ps: batch }) });
      batch = [];
      bytes = 0;
    };
    for (const payload of payloads) {
      // A payload's size inside the envelope: its JSON string form, and a comma.
      const size = Buffer.byteLength(JSON.stringify(payload)) + 1;
      if (size > room) {
        close();
        parts.push(payload);
        continue;
      }
      if (bytes + size > room) close();
      batch.push(payload);
      bytes += size;
    }
    close();
    return parts;
  }

  #envelope(content: { ps: string[] } | { r: number }): string {
    this.#seq += 1;
    return JSON.stringify({ o: this.#options.origin, s: this.#seq, ...content } satisfies Envelope);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = null;
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
    await this.#delivering;
  }

  async #listen(): Promise<void> {
    const client = this.#store.newClient();
    client.on('notification', (message) => {
      if (message.channel === this.#channel && message.payload !== undefined) this.#receive(message.payload);
    });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, new Error('connection closed')));
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdent(this.#channel)}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
    this.#reconnectMs = RECONNECT_FIRST_MS;
    this.#options.onListenState?.({ kind: 'listening' });
  }

  #lost(client: pg.Client, error: Error): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = null;
    client.end().catch(() => {});
    this.#options.onListenState?.({ kind: 'reconnecting', error: error.message });
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer) return;
    const delay = this.#reconnectMs;
    this.#reconnectMs = Math.min(RECONNECT_MAX_MS, this.#reconnectMs * 2);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      this.#listen().catch(() => this.#scheduleReconnect());
    }, delay);
    this.#reconnectTimer.unref();
  }

  #receive(raw: string): void {
    let envelope: Envelope;
    try {
      envelope = Envelope.parse(JSON.parse(raw));
    } catch {
      return; // Not ours: something else notified on the channel.
    }
    if (envelope.o === this.#options.origin) return;
    this.#delivering = this.#delivering
      .then(async () => {
        const payloads = 'ps' in envelope ? envelope.ps : 'p' in envelope ? [envelope.p] : [await this.#fetch(envelope.r)];
        for (const payload of payloads) if (payload !== null && !this.#closed) handOn(this.#options, payload, envelope.o);
      })
      // Each link settles, so one failure neither stops the next messages nor makes close() throw.
      .catch(() => {});
  }

  async #fetch(id: number): Promise<string | null> {
    const row = await this.#store.get<{ payload: string }>('SELECT payload FROM store_notifications WHERE id = ?', [id]).catch(() => undefined);
    return row?.payload ?? null;
  }
}

/** A PostgreSQL array literal of texts: `{"a","b\"c"}`. */
function toTextArray(items: readonly string[]): string {
  return `{${items.map((s) => `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}
