import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedPaths, hashFiles } from './file-hashes.js';

describe('hashes of the files a configuration names', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('hashes files, names directories and missing files, in the order asked', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-hashes-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'key.pem'), 'key one');
    mkdirSync(join(dir, 'www'));
    const paths = [join(dir, 'www'), join(dir, 'key.pem'), join(dir, 'gone.pem')];
    const hashes = hashFiles(paths);
    expect([...hashes.keys()]).toEqual(paths);
    expect([...hashes.values()]).toEqual(['directory', createHash('sha256').update('key one').digest('hex'), 'missing']);
    // A key rewritten in place is a change; the directory and the missing file are not.
    writeFileSync(join(dir, 'key.pem'), 'key two');
    expect(changedPaths(hashes, hashFiles(paths))).toEqual([join(dir, 'key.pem')]);
  });
});
