import { describe, expect, it } from 'vitest';
import { configText, join, startManager, tempDir, writeFileSync } from './testing/config-files.js';

describe('serialized reloads', () => {
  it('runs one reload at a time and folds the requests made meanwhile into one more reload after it', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const { manager, target } = await startManager([file]);

    target.hold();
    const first = manager.reload('control');
    await expect.poll(() => target.waiting).toBe(1);
    writeFileSync(file, configText(['/a', '/b']));
    const second = manager.reload('control');
    const third = manager.reload('signal');
    target.release();

    const [a, b, c] = await Promise.all([first, second, third]);
    expect(target.maxRunning).toBe(1);
    expect(a.id).not.toBe(b.id);
    // The two asks made during the first reload share the one reload that ran after it.
    expect(b.id).toBe(c.id);
    expect(b.trigger).toBe('control');
    expect(target.paths()).toEqual(['/a', '/b']);
    expect(manager.history().map((r) => r.id)).toEqual([b.id, a.id, expect.any(String)]);
  });

  it('reloads an unchanged configuration when asked, recording it as unchanged', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const { manager, target } = await startManager([file]);
    const record = await manager.reload('signal');
    expect(record).toMatchObject({ trigger: 'signal', result: 'applied' });
    expect(record.diff).toMatchObject({ unchanged: true, summary: 'unchanged', files: [] });
    expect(target.applied).toHaveLength(2);
  });
});
