import { describe, expect, it } from 'vitest';
import { EDITOR_SAVE_NAMES, EDITOR_SAVES } from '../../core/testing/editor-saves.js';
import { configText, join, startManager, tempDir, writeFileSync } from './testing/config-files.js';

describe('editor saves', () => {
  it.each(EDITOR_SAVE_NAMES)('a save made by "%s" is exactly one reload, and the watch survives it', async (how) => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const { manager, target } = await startManager([file]);

    EDITOR_SAVES[how]!(file, configText(['/saved']));
    await expect.poll(() => target.paths()).toEqual(['/saved']);
    // The next save is the next reload: nothing (no rejected "file missing" half-way) came in between.
    writeFileSync(file, configText(['/next']));
    await expect.poll(() => target.paths()).toEqual(['/next']);
    expect(manager.history().map((r) => `${r.trigger}:${r.result}`)).toEqual(['file:applied', 'file:applied', 'start:applied']);
  });

  it('an editor save in a configuration directory is one reload too', async () => {
    const dir = tempDir();
    const file = join(dir, '10-main.hcl');
    writeFileSync(file, configText(['/a']));
    const { manager, target } = await startManager([dir]);
    EDITOR_SAVES['rename to a backup, create, delete the backup (vim)']!(file, configText(['/saved']));
    await expect.poll(() => target.paths()).toEqual(['/saved']);
    writeFileSync(join(dir, '20-more.hcl'), 'server "main" {\n  endpoint "/more" {\n    response {\n      status = 200\n    }\n  }\n}\n');
    await expect.poll(() => target.paths()).toEqual(['/saved', '/more']);
    expect(manager.history().map((r) => `${r.trigger}:${r.result}`)).toEqual(['file:applied', 'file:applied', 'start:applied']);
  });
});
