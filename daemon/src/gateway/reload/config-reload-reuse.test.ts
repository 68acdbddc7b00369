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

  it('name only the changed backend when the change moved the ones after it; those keep their place in the diff as unchanged', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    const text = (above: string, timeout: string): string => `${configText(['/a'])}${above}definitions {\n  backend "c" {\n    origin = "http://10.0.0.3:80"\n    connect_timeout = "${timeout}"\n  }\n  backend "a" {\n    origin = "http://10.0.0.1:80"\n  }\n}\n`;
    writeFileSync(file, text('', '5s'));
    const { manager } = await startManager([file]);
    const before = manager.config!;
    // "c" grows by a character, so "a" after it moves a byte; then a comment moves both a line.
    writeFileSync(file, text('', '10s'));
    expect(await manager.reload('control')).toMatchObject({ result: 'applied', diff: { backends: { added: [], removed: [], changed: ['c'] }, summary: '~1 backend (c)' } });
    expect(manager.config!.backends['a']!.range.start.byte).toBe(before.backends['a']!.range.start.byte + 1);
    writeFileSync(file, text('# moved\n', '10s'));
    const record = await manager.reload('control');
    expect(record).toMatchObject({ result: 'applied', diff: { unchanged: false, backends: { added: [], removed: [], changed: [] } } });
    expect(manager.config!.backends['a']!.range.start.line).toBe(before.backends['a']!.range.start.line + 1);
  });
});
