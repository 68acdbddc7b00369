import { describe, expect, it } from 'vitest';
import { configText, join, startManager, tempDir, writeFileSync } from './testing/config-files.js';

describe('reload history', () => {
  it('keeps the last 50 reloads, newest first, each with its trigger, time, duration and source hashes', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const { manager } = await startManager([file]);
    const ids: string[] = [];
    for (let i = 0; i < 55; i += 1) ids.push((await manager.reload('control')).id);

    const history = manager.history();
    expect(history).toHaveLength(50);
    expect(history.map((r) => r.id)).toEqual(ids.slice(-50).reverse());
    const [newest] = history;
    expect(newest).toMatchObject({ trigger: 'control', result: 'applied', sources: [{ path: file, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }] });
    expect(Date.parse(newest!.startedAt)).not.toBeNaN();
    expect(newest!.durationMs).toBeGreaterThanOrEqual(0);
    expect(manager.status().last).toEqual(newest);
  });
});
