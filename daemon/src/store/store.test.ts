import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appliedMigrations, migrate, schemaVersion } from './migrate.js';
import { DAEMON_MIGRATIONS as MIGRATION_SETS } from '../main/areas.js';
import { CORE_MIGRATIONS as MIGRATIONS } from './schema.js';
import { SqliteStore } from './sqlite-store.js';
import { testDatabases, type TestDatabase } from './testing/databases.js';
import type { Migration, Store } from './types.js';

const factories = await testDatabases();

if (!existsSync(fileURLToPath(new URL('../../dist/store/migrate.js', import.meta.url)))) {
  throw new Error('run `npm run build` first: some store tests run the compiled store in child processes');
}

const kv: Migration = { id: 1, name: 'kv', up: 'CREATE TABLE kv (k TEXT PRIMARY KEY, v BIGINT NOT NULL, flag BOOLEAN)' };

describe.each(factories.map((f) => [f.kind, f] as const))('store on %s', (_kind, factory) => {
  let database: TestDatabase;
  let store: Store;

  beforeEach(async () => {
    database = factory();
    store = await database.open();
  });
  afterEach(async () => {
    await store.close();
    await database.destroy();
  });

  it('runs statements with ? placeholders and returns numbers for BIGINT and COUNT', async () => {
    await migrate(store, [kv]);
    await store.run('INSERT INTO kv (k, v, flag) VALUES (?, ?, ?)', ['a', 2 ** 40, true]);
    await store.run("INSERT INTO kv (k, v) VALUES ('what?', ?)", [7]);
    expect(await store.get('SELECT v FROM kv WHERE k = ?', ['a'])).toEqual({ v: 2 ** 40 });
    expect(await store.get('SELECT COUNT(*) AS n FROM kv')).toEqual({ n: 2 });
    expect(await store.all<{ k: string }>("SELECT k FROM kv WHERE k LIKE '%?' ORDER BY k")).toEqual([{ k: 'what?' }]);
    expect((await store.run('UPDATE kv SET v = v + 1')).changes).toBe(2);
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    await migrate(store, [kv]);
    await store.transaction(async (tx) => {
      await tx.run('INSERT INTO kv (k, v) VALUES (?, ?)', ['kept', 1]);
    });
    await expect(
      store.transaction(async (tx) => {
        await tx.run('INSERT INTO kv (k, v) VALUES (?, ?)', ['lost', 1]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.all('SELECT k FROM kv ORDER BY k')).toEqual([{ k: 'kept' }]);
  });

  it('keeps concurrent read-modify-write transactions exact', async () => {
    await migrate(store, [kv]);
    await store.run('INSERT INTO kv (k, v) VALUES (?, 0)', ['counter']);
    const other = await database.open();
    try {
      const bump = (s: Store) =>
        s.transaction(async (tx) => {
          const lock = s.kind === 'postgres' ? ' FOR UPDATE' : '';
          const row = await tx.get<{ v: number }>(`SELECT v FROM kv WHERE k = ?${lock}`, ['counter']);
          await tx.run('UPDATE kv SET v = ? WHERE k = ?', [row!.v + 1, 'counter']);
        });
      await Promise.all(Array.from({ length: 40 }, (_, i) => bump(i % 2 ? store : other)));
      expect(await store.get('SELECT v FROM kv WHERE k = ?', ['counter'])).toEqual({ v: 40 });
    } finally {
      await other.close();
    }
  });

  it('keeps read-modify-write transactions exact across processes', async () => {
    await migrate(store, [kv]);
    await store.run('INSERT INTO kv (k, v) VALUES (?, 0)', ['counter']);
    const body = `
      for (let i = 0; i < 50; i++) {
        await store.transaction(async (tx) => {
          const lock = store.kind === 'postgres' ? ' FOR UPDATE' : '';
          const row = await tx.get('SELECT v FROM kv WHERE k = ?' + lock, ['counter']);
          await new Promise((r) => setImmediate(r));
          await tx.run('UPDATE kv SET v = ? WHERE k = ?', [row.v + 1, 'counter']);
        });
      }
      await store.close();`;
    await Promise.all([runWithStore(database.address, body), runWithStore(database.address, body)]);
    expect(await store.get('SELECT v FROM kv WHERE k = ?', ['counter'])).toEqual({ v: 100 });
  });

  it('applies migrations once, in order, and records them', async () => {
    expect(await migrate(store, MIGRATIONS)).toBe(MIGRATIONS.length);
    expect(await migrate(store, MIGRATIONS)).toBe(MIGRATIONS.length);
    const applied = await appliedMigrations(store);
    expect(applied.map((a) => [a.area, a.id, a.name])).toEqual(MIGRATIONS.map((m) => ['core', m.id, m.name]));
    await store.run('INSERT INTO daemon_boots (boot_id, version, mode, pid, hostname, started_at) VALUES (?, ?, ?, ?, ?, ?)', ['b1', '0.1.0', 'all', 1, 'h', Date.now()]);
  });

  it('rolls a failing migration back whole, leaving earlier ones in place', async () => {
    const broken: Migration = { id: 2, name: 'half', up: 'CREATE TABLE half_done (id INTEGER); CREATE TABLE kv (dup INTEGER);' };
    await expect(migrate(store, [kv, broken])).rejects.toThrow(/migration core\/2 \(half\) failed and was rolled back/);
    expect(await schemaVersion(store)).toBe(1);
    await expect(store.all('SELECT * FROM half_done')).rejects.toThrow();
  });

  it('refuses a database whose schema is newer than the code', async () => {
    await migrate(store, [kv, { id: 2, name: 'later', up: 'CREATE TABLE later (id INTEGER)' }]);
    await expect(migrate(store, [kv])).rejects.toThrow(/schema of 'core' is at version 2 but this Portico knows migrations up to 1/);
  });

  it('refuses a database with a different migration history', async () => {
    await migrate(store, [kv]);
    await expect(migrate(store, [{ id: 1, name: 'other', up: 'SELECT 1' }])).rejects.toThrow(/expects 'other'/);
  });

  it('numbers each area on its own and applies the areas in order', async () => {
    const sets = [
      { area: 'core', migrations: [kv] },
      { area: 'infosessions', migrations: [{ id: 1, name: 'sessions', up: 'CREATE TABLE sessions (id INTEGER PRIMARY KEY)' }] },
    ];
    expect(await migrate(store, sets)).toBe(2);
    const grown = [...sets, { area: 'ingest', migrations: [{ id: 1, name: 'jobs', up: 'CREATE TABLE jobs (id INTEGER PRIMARY KEY)' }] }];
    expect(await migrate(store, grown)).toBe(3);
    expect((await appliedMigrations(store)).map((a) => `${a.area}/${a.id}`)).toEqual(['core/1', 'infosessions/1', 'ingest/1']);
    await expect(migrate(store, [sets[0]!, sets[0]!])).rejects.toThrow(/area 'core' listed twice/);
  });

  it('runs migrations safely from two processes at once', async () => {
    const other = await database.open();
    try {
      const versions = await Promise.all([migrate(store, MIGRATION_SETS), migrate(other, MIGRATION_SETS)]);
      const total = MIGRATION_SETS.reduce((n, set) => n + set.migrations.length, 0);
      expect(versions).toEqual([total, total]);
      expect((await appliedMigrations(store)).length).toBe(total);
    } finally {
      await other.close();
    }
  });

  it('leaves the database as it was when the process dies mid-migration', async () => {
    await migrate(store, [kv]);
    await crashDuringMigration(database.address);
    const reopened = await database.open();
    try {
      expect(await schemaVersion(reopened)).toBe(1);
      await expect(reopened.all('SELECT * FROM crash_victim')).rejects.toThrow();
      expect(await migrate(reopened, [kv, { id: 2, name: 'crashy', up: 'CREATE TABLE crash_victim (id INTEGER)' }])).toBe(2);
    } finally {
      await reopened.close();
    }
  });
});

describe('SQLite settings', () => {
  it('opens the file in WAL mode with foreign keys and a busy timeout', async () => {
    const { sqliteTestDatabase } = await import('./testing/databases.js');
    const db = sqliteTestDatabase();
    const store = (await db.open()) as SqliteStore;
    expect(store.pragma('journal_mode')).toBe('wal');
    expect(store.pragma('foreign_keys')).toBe(1);
    expect(store.pragma('busy_timeout')).toBe(5000);
    await store.close();
    await db.destroy();
  });
});

const DIST = fileURLToPath(new URL('../../dist/store/', import.meta.url));

/** Node code that opens the compiled store on `address` as `store`, then runs `body`. */
function childScript(address: TestDatabase['address'], body: string): string {
  return `
    const { migrate } = await import(${JSON.stringify(`${DIST}migrate.js`)});
    const addr = ${JSON.stringify(address)};
    const store = addr.file
      ? new (await import(${JSON.stringify(`${DIST}sqlite-store.js`)})).SqliteStore({ file: addr.file })
      : await (await import(${JSON.stringify(`${DIST}postgres-store.js`)})).PostgresStore.connect({ url: addr.url, schema: addr.schema });
    ${body}`;
}

/** Runs `body` with a store in a child process; rejects with its stderr when it fails. */
async function runWithStore(address: TestDatabase['address'], body: string): Promise<void> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', childScript(address, body)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`child exited ${code}: ${stderr}`);
}

/** Starts a child that begins migration 2, creates a table in it, then is SIGKILLed. */
async function crashDuringMigration(address: TestDatabase['address']): Promise<void> {
  const script = childScript(address, `
    await migrate(store, [
      { id: 1, name: 'kv', up: 'CREATE TABLE kv (k TEXT PRIMARY KEY, v BIGINT NOT NULL, flag BOOLEAN)' },
      { id: 2, name: 'crashy', up: async (tx) => {
          await tx.exec('CREATE TABLE crash_victim (id INTEGER)');
          await tx.run('INSERT INTO crash_victim (id) VALUES (?)', [1]);
          process.stdout.write('inside-migration\\n');
          await new Promise(() => {});
      } },
    ]);`);
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child never reached the migration: ${stderr}`)), 15_000);
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('inside-migration')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`child exited early: ${stderr}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
