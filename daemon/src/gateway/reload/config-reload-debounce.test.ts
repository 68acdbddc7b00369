import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { configText, join, startManager, tempDir, writeFileSync } from './testing/config-files.js';

describe('debounce', () => {
  it('turns a burst of writes into one reload of the final content', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const { manager, target } = await startManager([file], { debounceMs: 150 });

    // An editor writing in pieces: every intermediate state is broken except the last.
    for (const piece of ['server "main" {', 'server "main" {\n  endpoint "/x" {', 'server "main" {\n  endpoint "/x" {\n    response {']) writeFileSync(file, piece);
    writeFileSync(file, configText(['/final']));
    await expect.poll(() => target.paths()).toEqual(['/final']);
    // Nothing else is queued: well past the debounce window, still one file reload and no rejected one.
    await sleep(600);
    expect(manager.history().map((r) => `${r.trigger}:${r.result}`)).toEqual(['file:applied', 'start:applied']);
  });

  it('does not reload for a save that leaves the content as it was (touch, :w without edits)', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    const text = configText(['/a']);
    writeFileSync(file, text);
    const { manager } = await startManager([file]);
    writeFileSync(file, text);
    writeFileSync(join(dir, 'portico.hcl'), configText(['/b']));
    await expect.poll(() => manager.history()).toHaveLength(2);
    writeFileSync(file, configText(['/b']));
    // Well past the debounce window: the second save of the same bytes added no record.
    await sleep(300);
    expect(manager.history().map((r) => r.trigger)).toEqual(['file', 'start']);
  });
});
