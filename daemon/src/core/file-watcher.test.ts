import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileWatcher } from './file-watcher.js';
import { EDITOR_SAVE_NAMES, EDITOR_SAVES } from './testing/editor-saves.js';

let dir: string;
let watcher: FileWatcher;
/** Each onChange call, as the base names of the paths it reported. */
let calls: string[][];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'portico-watch-'));
  calls = [];
  watcher = new FileWatcher((paths) => calls.push(paths.map((p) => basename(p))));
});
afterEach(async () => {
  await watcher.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Saves `marker` after the calls seen so far and waits for its call: a late event of an
 * earlier save would show as an extra call before it, or as its path inside the marker's call.
 */
async function settle(marker: string): Promise<void> {
  const before = calls.length;
  writeFileSync(marker, String(Date.now()));
  await expect.poll(() => calls.slice(before).some((c) => c.includes(basename(marker)))).toBe(true);
}

describe('FileWatcher', () => {
  it.each(EDITOR_SAVE_NAMES)('reports one save made by "%s" exactly once', async (how) => {
    const file = join(dir, 'portico.hcl');
    const marker = join(dir, 'marker.hcl');
    writeFileSync(file, 'one');
    writeFileSync(marker, '');
    await watcher.update({ files: [file, marker] });

    EDITOR_SAVES[how]!(file, 'two');
    await expect.poll(() => calls.length).toBe(1);
    await settle(marker);
    expect(calls).toEqual([['portico.hcl'], ['marker.hcl']]);
  });

  it('folds a burst of writes to several watched files into one report naming them', async () => {
    const a = join(dir, 'sessions.csv');
    const b = join(dir, 'buildings.csv');
    writeFileSync(a, '');
    writeFileSync(b, '');
    await watcher.update({ files: [a, b] });
    for (let i = 0; i < 5; i += 1) writeFileSync(a, `a${i}`);
    writeFileSync(b, 'b');
    await expect.poll(() => calls).toEqual([['buildings.csv', 'sessions.csv']]);
  });

  it('reports a file created where none was, and nothing for other files beside it', async () => {
    const file = join(dir, 'later.csv');
    const marker = join(dir, 'marker.csv');
    writeFileSync(marker, '');
    await watcher.update({ files: [file, marker] });
    writeFileSync(join(dir, 'notes.txt'), 'not watched');
    writeFileSync(join(dir, '.later.csv.swp'), 'swap file');
    writeFileSync(file, 'now here');
    await expect.poll(() => calls.length).toBe(1);
    await settle(marker);
    expect(calls).toEqual([['later.csv'], ['marker.csv']]);
  });

  it('watches no other entry of the directory, and still reports a watched file created later', async () => {
    const file = join(dir, 'portico.hcl');
    const later = join(dir, 'later.hcl');
    const log = join(dir, 'portico.log');
    writeFileSync(file, 'one');
    writeFileSync(log, '');
    writeFileSync(join(dir, 'notes.txt'), '');
    await watcher.update({ files: [file, later] });
    // A busy neighbour (a log file beside the configuration) is neither watched nor stat'ed by chokidar.
    expect(watcher.watchedEntries()[dir]).toEqual(['portico.hcl']);
    for (let i = 0; i < 20; i += 1) writeFileSync(log, `line ${i}\n`, { flag: 'a' });
    writeFileSync(later, 'now here');
    await expect.poll(() => calls).toEqual([['later.hcl']]);
    EDITOR_SAVES['write a temporary file and rename it over (atomic save)']!(file, 'two');
    await expect.poll(() => calls).toEqual([['later.hcl'], ['portico.hcl']]);
    expect(watcher.watchedEntries()[dir]?.sort()).toEqual(['later.hcl', 'portico.hcl']);
  });

  it('reports a save that comes right after the one just reported (chokidar throttles a change for 50 ms)', async () => {
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, 'one');
    const seen: string[] = [];
    // A short debounce, and the next save as soon as a report arrives: well inside chokidar's 50 ms throttle.
    const quick = new FileWatcher(
      (paths) => {
        seen.push(`${paths.map((p) => basename(p)).join(',')}@${String(seen.length)}`);
        if (seen.length === 1) writeFileSync(file, 'three');
      },
      { debounceMs: 5 },
    );
    try {
      await quick.update({ files: [file] });
      writeFileSync(file, 'two');
      await expect.poll(() => seen).toEqual(['portico.hcl@0', 'portico.hcl@1']);
    } finally {
      await quick.close();
    }
  });

  it('reports files added to, changed in and removed from a watched directory by suffix only', async () => {
    const conf = join(dir, 'conf.d');
    mkdirSync(conf);
    writeFileSync(join(conf, '10-main.hcl'), '');
    await watcher.update({ files: [], directories: [{ path: conf, suffix: '.hcl' }] });
    expect(watcher.watching).toEqual([`${conf}/*.hcl`]);

    writeFileSync(join(conf, 'README.txt'), 'ignored');
    writeFileSync(join(conf, '20-new.hcl'), 'added');
    await expect.poll(() => calls).toEqual([['20-new.hcl']]);
    rmSync(join(conf, '10-main.hcl'));
    await expect.poll(() => calls).toEqual([['20-new.hcl'], ['10-main.hcl']]);
  });

  it('moves the watch with update, and reports nothing after close', async () => {
    const first = join(dir, 'first');
    const second = join(dir, 'second');
    mkdirSync(first);
    mkdirSync(second);
    writeFileSync(join(first, 'a.csv'), '');
    writeFileSync(join(second, 'b.csv'), '');
    await watcher.update({ files: [join(first, 'a.csv')] });
    await watcher.update({ files: [join(second, 'b.csv')] });
    expect(watcher.watching).toEqual([join(second, 'b.csv')]);
    writeFileSync(join(first, 'a.csv'), 'no longer watched');
    writeFileSync(join(second, 'b.csv'), 'watched');
    await expect.poll(() => calls).toEqual([['b.csv']]);

    await watcher.close();
    writeFileSync(join(second, 'b.csv'), 'after close');
    const other = new FileWatcher((paths) => calls.push(paths.map((p) => `other:${basename(p)}`)));
    await other.update({ files: [join(second, 'b.csv')] });
    writeFileSync(join(second, 'b.csv'), 'seen by the other watcher only');
    await expect.poll(() => calls.at(-1)).toEqual(['other:b.csv']);
    await other.close();
    expect(calls.filter((c) => c.includes('b.csv'))).toEqual([['b.csv']]);
  });

  it('starts at once when no watched file has a directory yet (chokidar given no path never gets ready), and watches once one is named', async () => {
    const missing = join(dir, 'not-yet', 'data.csv');
    // The daemon awaited this at start: before, it never resolved and the start hung.
    await watcher.update({ files: [missing] });
    expect(watcher.watching).toEqual([missing]);
    mkdirSync(join(dir, 'not-yet'));
    writeFileSync(missing, 'created');
    const present = join(dir, 'present.csv');
    writeFileSync(present, '');
    await watcher.update({ files: [missing, present] });
    writeFileSync(present, 'changed');
    await expect.poll(() => calls.flat()).toContain('present.csv');
  });
});

