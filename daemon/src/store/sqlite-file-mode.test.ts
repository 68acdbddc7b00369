import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from './sqlite-store.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const mode = (path: string): number => statSync(path).mode & 0o777;

describe('the SQLite file holds secrets: owner only', () => {
  it('creates the database, its WAL and SHM 0600 and a new data dir 0700, whatever the umask', async () => {
    const root = mkdtempSync(join(tmpdir(), 'portico-mode-'));
    dirs.push(root);
    const previous = process.umask(0o022);
    try {
      const file = join(root, 'data', 'portico.db');
      const store = new SqliteStore({ file });
      await store.exec('CREATE TABLE t (secret TEXT)');
      await store.run('INSERT INTO t VALUES (?)', ['whsec_x']);
      expect([mode(file), mode(`${file}-wal`), mode(`${file}-shm`), mode(join(root, 'data'))]).toEqual([0o600, 0o600, 0o600, 0o700]);
      await store.close();
    } finally {
      process.umask(previous);
    }
  });

  it('tightens a database file an older version left 0644', async () => {
    const root = mkdtempSync(join(tmpdir(), 'portico-mode-'));
    dirs.push(root);
    const file = join(root, 'portico.db');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    const store = new SqliteStore({ file });
    expect(mode(file)).toBe(0o600);
    await store.close();
  });
});
