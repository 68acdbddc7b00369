import { describe, expect, it } from 'vitest';
import { configText, join, startManager, tempDir, writeFileSync } from './testing/config-files.js';

describe('referenced files', () => {
  it('reloads when an error_file the configuration references changes, and names it in the diff', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(join(dir, 'error.html'), '<h1>{{.http_status}}</h1>');
    writeFileSync(file, configText(['/a'], '  error_file = "error.html"\n'));
    const { manager, target } = await startManager([file]);
    expect(manager.status().watching).toContain(join(dir, 'error.html'));

    writeFileSync(join(dir, 'error.html'), '<h1>Oops {{.http_status}}</h1>');
    await expect.poll(() => target.applied.length).toBe(2);
    expect(manager.history()[0]).toMatchObject({ trigger: 'file', result: 'applied' });
    expect(manager.history()[0]!.diff).toMatchObject({ unchanged: false, files: [join(dir, 'error.html')], summary: '~1 file (error.html)' });
  });

  it('watches a file referenced only after a reload, and stops caring about one no longer referenced', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(join(dir, 'old.html'), 'old');
    writeFileSync(join(dir, 'new.html'), 'new');
    writeFileSync(file, configText(['/a'], '  error_file = "old.html"\n'));
    const { manager, target } = await startManager([file]);

    writeFileSync(file, configText(['/a'], '  error_file = "new.html"\n'));
    await expect.poll(() => manager.status().watching).toContain(join(dir, 'new.html'));
    expect(manager.status().watching).not.toContain(join(dir, 'old.html'));
    const applied = target.applied.length;

    writeFileSync(join(dir, 'new.html'), 'new, edited');
    await expect.poll(() => target.applied.length).toBe(applied + 1);
    expect(manager.history()[0]!.diff?.files).toEqual([join(dir, 'new.html')]);
  });

  it('a save rejected for a missing referenced file reloads once that file is created', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const { manager, target } = await startManager([file]);

    writeFileSync(file, configText(['/a'], '  error_file = "later.html"\n'));
    await expect.poll(() => manager.history()[0]?.result).toBe('rejected');
    expect(manager.history()[0]!.diagnostics.map((d) => d.text).join('\n')).toContain('later.html');
    await expect.poll(() => manager.status().watching).toContain(join(dir, 'later.html'));
    const applied = target.applied.length;

    writeFileSync(join(dir, 'later.html'), '<h1>{{.http_status}}</h1>');
    await expect.poll(() => target.applied.length).toBe(applied + 1);
    expect(manager.history()[0]).toMatchObject({ trigger: 'file', result: 'applied' });
  });
});
