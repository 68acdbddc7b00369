import { describe, expect, it } from 'vitest';
import { configText, join, startManager, tempDir, writeFileSync } from './testing/config-files.js';

const definitions = (timeout: string): string => `definitions {\n  backend "a" {\n    origin = "http://10.0.0.1:80"\n  }\n  backend "b" {\n    origin = "http://10.0.0.2:80"\n    connect_timeout = "${timeout}"\n  }\n}\n`;

describe('reloads of unchanged backends', () => {
  it('keep the unchanged backend as the same object, build the changed one, and name only it in the diff', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, `${configText(['/a'])}${definitions('5s')}`);
    const { manager } = await startManager([file]);
    const before = manager.config!;
    writeFileSync(file, `${configText(['/a'])}${definitions('7s')}`);
    const record = await manager.reload('control');
    expect(record).toMatchObject({ result: 'applied', diff: { backends: { added: [], removed: [], changed: ['b'] }, summary: '~1 backend (b)' } });
    const after = manager.config!;
    expect(after.backends['a']).toBe(before.backends['a']);
    expect(after.backends['b']!.connectTimeout).toBe(7000);
    // A rejected save in between leaves the table of the last good load.
    writeFileSync(file, `${configText(['/a'])}${definitions('later')}`);
    expect((await manager.reload('control')).result).toBe('rejected');
    writeFileSync(file, `${configText(['/a'])}${definitions('7s')}`);
    expect((await manager.reload('control')).diff).toMatchObject({ unchanged: true });
    expect(manager.config!.backends['b']).toBe(after.backends['b']);
  });
});
