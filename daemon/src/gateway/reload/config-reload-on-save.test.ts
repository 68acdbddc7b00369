import { describe, expect, it } from 'vitest';
import { configText, join, renameSave, startManager, tempDir, writeFileSync } from './testing/config-files.js';

describe('reload on save', () => {
  it('applies a plainly written save and records it as a file reload with its diff', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const { manager, target } = await startManager([file]);
    expect(target.paths()).toEqual(['/a']);

    writeFileSync(file, configText(['/a', '/b', '/c']));
    await expect.poll(() => target.paths()).toEqual(['/a', '/b', '/c']);
    const last = manager.history()[0]!;
    expect(last).toMatchObject({ trigger: 'file', result: 'applied', diagnostics: [] });
    expect(last.diff?.summary).toBe('+2 endpoints (/b, /c)');
    expect(manager.status().files).toEqual([{ path: file, sha256: last.sources[0]!.sha256 }]);
  });

  it('applies a save made by writing a temporary file and renaming it over the original, again and again', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const { target } = await startManager([file]);

    renameSave(file, configText(['/renamed']));
    await expect.poll(() => target.paths()).toEqual(['/renamed']);
    // The watch must survive the rename: the file is a new inode now.
    renameSave(file, configText(['/renamed-again']));
    await expect.poll(() => target.paths()).toEqual(['/renamed-again']);
  });

  it('reloads when a *.hcl file is added to a configuration directory, and ignores other files there', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, '10-main.hcl'), configText(['/a']));
    const { manager, target } = await startManager([dir]);
    writeFileSync(join(dir, 'notes.txt'), 'not configuration');
    writeFileSync(join(dir, '20-more.hcl'), 'server "main" {\n  endpoint "/more" {\n    response {\n      status = 200\n    }\n  }\n}\n');
    await expect.poll(() => target.paths()).toEqual(['/a', '/more']);
    expect(manager.history().filter((r) => r.trigger === 'file')).toHaveLength(1);
  });
});
