import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EDITOR_SAVE_NAMES, EDITOR_SAVES } from '../core/testing/editor-saves.js';
import { InfosessionsSource, type ReloadResult } from './source.js';

const HEADER = 'id,employer,date,start_time,end_time,building_code,building_room\n';
let dir: string;
let files: { sessions: string; buildings: string };
let results: ReloadResult[];
let source: InfosessionsSource;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'portico-source-'));
  files = { sessions: join(dir, 'infosessions.csv'), buildings: join(dir, 'buildings.csv') };
  writeFileSync(files.buildings, 'code,name,latitude,longitude,map_url\nDC,Davis Centre,43.47,-80.54,\n');
  results = [];
  source = new InfosessionsSource(files, (r) => results.push(r));
});
afterEach(async () => {
  await source.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('InfosessionsSource', () => {
  it('loads sessions with building facts from the table', async () => {
    writeFileSync(files.sessions, `${HEADER}1,A,2026-01-05,11:30,13:30,dc,1301\n`);
    await source.load();
    expect(source.snapshot.records[0]?.building).toEqual({ code: 'DC', name: 'Davis Centre', room: '1301', latitude: 43.47, longitude: -80.54, map_url: null });
    expect(JSON.parse(source.snapshot.dataJson.toString('utf8'))).toHaveLength(1);
    expect(results).toEqual([{ file: files.sessions, applied: true, rows: 1, rejected: [], warnings: [], error: null }]);
  });

  it('keeps serving the previous data when the file cannot be read, and says why', async () => {
    writeFileSync(files.sessions, `${HEADER}1,A,2026-01-05,11:30,13:30,DC,1301\n`);
    await source.load();
    const before = source.snapshot;
    for (const [content, message] of [
      [`${HEADER}2,"B,2026-01-05,11:30,13:30,DC,1301\n`, 'line 2, column 3: a quoted field is never closed (missing ")'],
      [Buffer.from([0x69, 0x64, 0x0a, 0x92]), 'the file is not valid UTF-8; save it as UTF-8 (portico infosessions import converts legacy Windows-1252 files)'],
      ['', 'the file is empty; the first line must be the header (see docs/infosessions.md)'],
    ] as const) {
      writeFileSync(files.sessions, content);
      await source.load();
      expect(source.snapshot).toBe(before);
      expect(source.status().sessions).toMatchObject({ rows: 1, error: { message } });
      expect(results.at(-1)).toMatchObject({ applied: false, rows: 1, error: message });
    }
    rmSync(files.sessions);
    await source.load();
    expect(source.status().sessions.error?.message).toBe('the file does not exist');
    expect(source.snapshot).toBe(before);
  });

  it('reloads on save while started', async () => {
    writeFileSync(files.sessions, `${HEADER}1,A,2026-01-05,11:30,13:30,DC,1301\n`);
    await source.start();
    writeFileSync(files.sessions, `${HEADER}1,Changed,2026-01-05,11:30,13:30,DC,1301\n`);
    const deadline = Date.now() + 3000;
    while (source.snapshot.records[0]?.employer !== 'Changed' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(source.snapshot.records[0]?.employer).toBe('Changed');
  });

  it.each(EDITOR_SAVE_NAMES)('reloads exactly once for a save made by "%s"', async (how) => {
    writeFileSync(files.sessions, `${HEADER}1,A,2026-01-05,11:30,13:30,DC,1301\n`);
    await source.start();
    expect(results).toHaveLength(1);

    EDITOR_SAVES[how]!(files.sessions, `${HEADER}1,Saved,2026-01-05,11:30,13:30,DC,1301\n`);
    await expect.poll(() => source.snapshot.records[0]?.employer).toBe('Saved');
    // A later save of the other file is the next reload: nothing came in between, and it read the new building.
    writeFileSync(files.buildings, 'code,name,latitude,longitude,map_url\nDC,Marker Hall,43.47,-80.54,\n');
    await expect.poll(() => source.snapshot.records[0]?.building?.name).toBe('Marker Hall');
    expect(results.map((r) => r.applied)).toEqual([true, true, true]);
  });
});
