import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate } from './migrate.js';
import { openNotificationChannel, type ListenState, type NotificationChannel } from './notifications.js';
import { CORE_MIGRATIONS } from './schema.js';
import { SQLITE_KEPT_NOTIFICATIONS } from './sqlite-notifications.js';
import { postgresTestDatabase, sqliteTestDatabase, testDatabases, TEST_POSTGRES_URL, type TestDatabase } from './testing/databases.js';
import type { Store } from './types.js';

const factories = await testDatabases();
const DIST = fileURLToPath(new URL('../../dist/store/', import.meta.url));
if (!existsSync(`${DIST}notifications.js`)) throw new Error('run `npm run build` first: a test publishes from the compiled store in a child process');

interface Heard {
  payload: string;
  origin: string;
}

/** A channel on `store` that records what it hears. */
async function listener(store: Store, origin: string, states: ListenState[] = []): Promise<{ channel: NotificationChannel; heard: Heard[] }> {
  const heard: Heard[] = [];
  const channel = await openNotificationChannel(store, { channel: 'events', origin, pollMs: 50, onMessage: (payload, from) => heard.push({ payload, origin: from }), onListenState: (s) => states.push(s) });
  return { channel, heard };
}

describe.each(factories.map((f) => [f.kind, f] as const))('notifications between processes on %s', (_kind, factory) => {
  let database: TestDatabase;
  const stores: Store[] = [];
  const channels: NotificationChannel[] = [];
  const open = async (): Promise<Store> => {
    const store = await database.open();
    stores.push(store);
    return store;
  };
  const listen = async (store: Store, origin: string, states?: ListenState[]) => {
    const made = await listener(store, origin, states);
    channels.push(made.channel);
    return made;
  };

  beforeEach(async () => {
    database = factory();
    await migrate(await open(), [{ area: 'core', migrations: CORE_MIGRATIONS }]);
  });
  afterEach(async () => {
    for (const c of channels.splice(0)) await c.close();
    for (const s of stores.splice(0)) await s.close();
    await database.destroy();
  });

  it('hands what one store handle publishes to another, in order, and never back to its sender', async () => {
    const a = await listen(stores[0]!, 'process-a');
    const b = await listen(await open(), 'process-b');
    await a.channel.publish(['one', 'two']);
    await a.channel.publish(['three', 'three']);
    await expect.poll(() => b.heard.map((h) => h.payload)).toEqual(['one', 'two', 'three', 'three']);
    expect(b.heard.every((h) => h.origin === 'process-a')).toBe(true);
    await b.channel.publish(['back']);
    await expect.poll(() => a.heard.map((h) => h.payload)).toEqual(['back']);
    // Neither heard itself: a's list has only b's message, b's only a's.
    expect(b.heard.map((h) => h.payload)).not.toContain('back');
  });

  it('starts a new listener after the messages already sent', async () => {
    const a = await listen(stores[0]!, 'process-a');
    await a.channel.publish(['before']);
    const b = await listen(await open(), 'process-b');
    await a.channel.publish(['after']);
    await expect.poll(() => b.heard.map((h) => h.payload)).toEqual(['after']);
  });

  it('carries a message longer than a NOTIFY payload may be, between short ones, in order', async () => {
    const a = await listen(stores[0]!, 'process-a');
    const b = await listen(await open(), 'process-b');
    const long = `{"message":"${'é'.repeat(6000)}"}`;
    await a.channel.publish(['short 1', long, 'short 2']);
    await expect.poll(() => b.heard.length).toBe(3);
    expect(b.heard.map((h) => h.payload)).toEqual(['short 1', long, 'short 2']);
  });

  it('carries a large publish in few writes: many messages share a row or a NOTIFY, in order', async () => {
    const store = stores[0]!;
    const a = await listen(store, 'process-a');
    const b = await listen(await open(), 'process-b');
    const messages = Array.from({ length: 400 }, (_, i) => JSON.stringify({ type: 'delivery.state', message: `delivery ${i} delivered`, pad: 'x'.repeat(60) }));
    const bytes = messages.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0);
    const notifies: string[] = [];
    const spy = store.kind === 'postgres' ? new pg.Client({ connectionString: database.address.url }) : null;
    if (spy) {
      await spy.connect();
      spy.on('notification', (n) => notifies.push(n.payload ?? ''));
      await spy.query(`LISTEN "${a.channel.describe().replace('PostgreSQL: LISTEN ', '')}"`);
    }
    try {
      await a.channel.publish(messages);
      await expect.poll(() => b.heard.length).toBe(400);
      expect(b.heard.map((h) => h.payload)).toEqual(messages);
      if (spy) {
        await expect.poll(() => notifies.length).toBeGreaterThan(0);
        // About 44 KB of messages in NOTIFYs of at most 7,900 bytes each: 6 or 7, not one per message.
        expect(notifies.length).toBeLessThanOrEqual(Math.ceil(bytes / 7000));
        expect(notifies.every((n) => Buffer.byteLength(n) <= 7900)).toBe(true);
      } else {
        const { n } = (await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM store_notifications WHERE origin = 'process-a'"))!;
        // Under 64 KiB of messages: one row.
        expect(n).toBe(1);
      }
    } finally {
      await spy?.end();
    }
  });

  it('goes on with the next messages after a listener throws on one, and closes cleanly', async () => {
    const a = await listen(stores[0]!, 'process-a');
    const heard: string[] = [];
    const errors: unknown[] = [];
    const b = await openNotificationChannel(await open(), {
      channel: 'events',
      origin: 'process-b',
      pollMs: 50,
      onMessage: (payload) => {
        if (payload === 'bad') throw new Error('listener bug');
        heard.push(payload);
      },
      onMessageError: (error) => errors.push(error),
    });
    channels.push(b);
    await a.channel.publish(['one', 'bad', 'two']);
    await a.channel.publish(['three']);
    await expect.poll(() => heard).toEqual(['one', 'two', 'three']);
    expect(errors).toEqual([new Error('listener bug')]);
    await expect(b.close()).resolves.toBeUndefined();
  });

  it('hears a message another process published', async () => {
    const b = await listen(stores[0]!, 'process-b');
    await publishFromChild(database.address, 'from the child');
    await expect.poll(() => b.heard).toEqual([{ payload: 'from the child', origin: 'child' }]);
  });
});

describe('SQLite notifications table', () => {
  it('keeps only the newest rows, however many are published', async () => {
    const { sqliteTestDatabase } = await import('./testing/databases.js');
    const database = sqliteTestDatabase();
    const store = await database.open();
    try {
      await migrate(store, [{ area: 'core', migrations: CORE_MIGRATIONS }]);
      const { channel } = await listener(store, 'a');
      // A publish is a row (up to 64 KiB of messages): more publishes than rows are kept.
      for (let i = 0; i < SQLITE_KEPT_NOTIFICATIONS + 500; i++) await channel.publish([`m${i}-0`, `m${i}-1`]);
      const { n } = (await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM store_notifications'))!;
      expect(n).toBeLessThanOrEqual(SQLITE_KEPT_NOTIFICATIONS + 200);
      expect(await store.get('SELECT payload FROM store_notifications ORDER BY id DESC LIMIT 1')).toEqual({ payload: `["m${SQLITE_KEPT_NOTIFICATIONS + 499}-0","m${SQLITE_KEPT_NOTIFICATIONS + 499}-1"]` });
      await channel.close();
    } finally {
      await store.close();
      await database.destroy();
    }
  });
});

describe('SQLite polls', () => {
  let database: TestDatabase;
  let listening: Store;
  let other: Store;
  beforeEach(async () => {
    database = sqliteTestDatabase();
    [listening, other] = [await database.open(), await database.open()];
    await migrate(listening, [{ area: 'core', migrations: CORE_MIGRATIONS }]);
  });
  afterEach(async () => {
    await listening.close();
    await other.close();
    await database.destroy();
  });
  /** Long enough for several polls at 50 ms; what is checked after it must hold however many ran. */
  const severalPolls = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 400));

  it('reports failing reads once, without ending the process, and hears again once they work', async () => {
    const states: ListenState[] = [];
    const b = await listener(listening, 'b', states);
    const a = await listener(other, 'a');
    try {
      await other.run('ALTER TABLE store_notifications RENAME TO store_notifications_aside');
      await expect.poll(() => states.map((s) => s.kind)).toEqual(['listening', 'reconnecting']);
      expect(states[1]).toMatchObject({ error: expect.stringContaining('store_notifications') });
      await severalPolls();
      expect(states.map((s) => s.kind)).toEqual(['listening', 'reconnecting']);
      await other.run('ALTER TABLE store_notifications_aside RENAME TO store_notifications');
      await expect.poll(() => states.map((s) => s.kind)).toEqual(['listening', 'reconnecting', 'listening']);
      await a.channel.publish(['after']);
      await expect.poll(() => b.heard.map((h) => h.payload)).toEqual(['after']);
    } finally {
      await a.channel.close();
      await b.channel.close();
    }
  });

  it('reports polls of a closed database once, and still closes', async () => {
    const spare = await database.open();
    const states: ListenState[] = [];
    const b = await listener(spare, 'b', states);
    await spare.close();
    await expect.poll(() => states.map((s) => s.kind)).toEqual(['listening', 'reconnecting']);
    await severalPolls();
    expect(states.map((s) => s.kind)).toEqual(['listening', 'reconnecting']);
    await expect(b.channel.close()).resolves.toBeUndefined();
  });
});

describe.skipIf(!factories.some((f) => f.kind === 'postgres'))('PostgreSQL LISTEN session', () => {
  it('is not heard from another schema of the same database', async () => {
    const [one, two] = [postgresTestDatabase(), postgresTestDatabase()];
    const stores = [await one.open(), await two.open(), await one.open()];
    const channels: NotificationChannel[] = [];
    try {
      for (const s of stores) await migrate(s, [{ area: 'core', migrations: CORE_MIGRATIONS }]);
      const a = await listener(stores[0]!, 'a');
      const other = await listener(stores[1]!, 'other');
      const same = await listener(stores[2]!, 'same');
      channels.push(a.channel, other.channel, same.channel);
      await a.channel.publish(['schema one only']);
      await expect.poll(() => same.heard.map((h) => h.payload)).toEqual(['schema one only']);
      await other.channel.publish(['schema two']);
      // Notifications arrive in commit order: had schema two's leaked, it would come before this one.
      await a.channel.publish(['second']);
      await expect.poll(() => same.heard.map((h) => h.payload)).toEqual(['schema one only', 'second']);
      expect(a.heard).toEqual([]);
      expect(other.heard).toEqual([]);
    } finally {
      for (const c of channels) await c.close();
      for (const s of stores) await s.close();
      await one.destroy();
      await two.destroy();
    }
  });

  it('listens again after its session is cut, and then hears new messages', async () => {
    const database = postgresTestDatabase();
    const [sender, receiver] = [await database.open(), await database.open()];
    const states: ListenState[] = [];
    const channels: NotificationChannel[] = [];
    try {
      await migrate(sender, [{ area: 'core', migrations: CORE_MIGRATIONS }]);
      const a = await listener(sender, 'a');
      const b = await listener(receiver, 'b', states);
      channels.push(a.channel, b.channel);
      const name = b.channel.describe().replace('PostgreSQL: LISTEN ', '');
      const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await admin.connect();
      try {
        const cut = await admin.query<{ n: number }>(`SELECT COUNT(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE query = $1`, [`LISTEN "${name}"`]);
        expect(cut.rows[0]!.n).toBe(2);
      } finally {
        await admin.end();
      }
      await expect.poll(() => states.map((s) => s.kind)).toEqual(['listening', 'reconnecting', 'listening']);
      await a.channel.publish(['after the cut']);
      await expect.poll(() => b.heard.map((h) => h.payload)).toEqual(['after the cut']);
    } finally {
      for (const c of channels) await c.close();
      await sender.close();
      await receiver.close();
      await database.destroy();
    }
  });
});

/** Opens the compiled store in a child process and publishes one message as origin `child`. */
async function publishFromChild(address: TestDatabase['address'], payload: string): Promise<void> {
  const script = `
    const addr = ${JSON.stringify(address)};
    const store = addr.file
      ? new (await import(${JSON.stringify(`${DIST}sqlite-store.js`)})).SqliteStore({ file: addr.file })
      : await (await import(${JSON.stringify(`${DIST}postgres-store.js`)})).PostgresStore.connect({ url: addr.url, schema: addr.schema });
    const { openNotificationChannel } = await import(${JSON.stringify(`${DIST}notifications.js`)});
    const channel = await openNotificationChannel(store, { channel: 'events', origin: 'child', onMessage: () => {} });
    await channel.publish([${JSON.stringify(payload)}]);
    await channel.close();
    await store.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`child exited ${code}: ${stderr}`);
}
