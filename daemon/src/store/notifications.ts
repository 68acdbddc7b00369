import { PostgresNotifications } from './postgres-notifications.js';
import { PostgresStore } from './postgres-store.js';
import { SqliteNotifications } from './sqlite-notifications.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './types.js';

/**
 * A listener's connection state, for the log: the PostgreSQL LISTEN session can drop and come
 * back; SQLite polls can fail (database busy or closed) and work again. `reconnecting` is told
 * once per outage, `listening` once it hears again.
 */
export type ListenState = { kind: 'listening' } | { kind: 'reconnecting'; error: string };

export interface NotificationOptions {
  /** Names the stream: processes on one database publish and listen on the same name. */
  channel: string;
  /** This process; its own messages are not handed back to it. */
  origin: string;
  /** Called once per message from another process, in the order they were published. */
  onMessage(payload: string, origin: string): void;
  /** onMessage threw: that message is dropped, the next ones are still handed on. */
  onMessageError?(error: unknown): void;
  onListenState?(state: ListenState): void;
  /** SQLite: how often to look for new messages (a cheap `PRAGMA data_version` unless there are some). */
  pollMs?: number;
}

/**
 * Messages between the Portico processes sharing one database (split modes, several daemons on
 * one PostgreSQL). Best effort, like the events it carries: a message published while a
 * listener is away (PostgreSQL session lost, SQLite listener more than the kept rows behind)
 * is not replayed.
 */
export interface NotificationChannel {
  /** Sends the payloads, in order, to every other process listening on this channel. */
  publish(payloads: readonly string[]): Promise<void>;
  /** How it works, for status: `SQLite: polls every 300 ms`, `PostgreSQL: LISTEN portico_events_…`. */
  describe(): string;
  close(): Promise<void>;
}

export async function openNotificationChannel(store: Store, options: NotificationOptions): Promise<NotificationChannel> {
  if (!/^[a-z][a-z0-9_]{0,30}$/.test(options.channel)) {
    throw new Error(`notification channel name '${options.channel}' must be 1-31 lower-case letters, digits or _, starting with a letter`);
  }
  if (store instanceof SqliteStore) return SqliteNotifications.open(store, options);
  if (store instanceof PostgresStore) return PostgresNotifications.open(store, options);
  throw new Error(`no cross-process notifications for a ${store.kind} store of this kind`);
}
