import { describe, expect, it } from 'vitest';
import { configText, join, startManager, tempDir, writeFileSync } from './test-support.js';

describe('a broken save', () => {
  it('keeps the old configuration serving and records the diagnostics with their position', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const records: string[] = [];
    const { manager, target } = await startManager([file], { onReload: (r) => records.push(r.result) });
    const servingHash = manager.status().files[0]!.sha256;

    writeFileSync(file, 'server "main" {\n  endpoint "/a" {\n    response {\n      status = 204\n    }\n  }\n  bogus = 1\n}\n');
    await expect.poll(() => manager.history()[0]?.result).toBe('rejected');
    const rejected = manager.history()[0]!;
    expect(rejected.trigger).toBe('file');
    expect(rejected.diagnostics).toContainEqual(expect.objectContaining({ severity: 'error', file, line: 7, column: 3, summary: 'Unsupported argument' }));
    expect(rejected.diagnostics[0]!.text).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7,3-8: Unsupported argument; `));
    expect(rejected.diff).toBeNull();
    // The old one still serves: nothing new was applied and the status keeps its hash.
    expect(target.applied).toHaveLength(1);
    expect(manager.status().files[0]!.sha256).toBe(servingHash);
    expect(manager.status().last?.id).toBe(rejected.id);
    expect(records).toEqual(['applied', 'rejected']);

    writeFileSync(file, configText(['/a', '/fixed']));
    await expect.poll(() => target.paths()).toEqual(['/a', '/fixed']);
    expect(manager.history()[0]).toMatchObject({ result: 'applied', diagnostics: [] });
  });

  it('keeps the old configuration when building the new runtime throws, recording the error', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const { manager, target } = await startManager([file]);
    target.failWith = 'listen EADDRINUSE: address already in use 0.0.0.0:8080';
    writeFileSync(file, configText(['/b']));
    await expect.poll(() => manager.history()[0]?.result).toBe('failed');
    expect(manager.history()[0]!.error).toBe('listen EADDRINUSE: address already in use 0.0.0.0:8080');
    expect(manager.config?.servers[0]?.endpoints.map((e) => e.path)).toEqual(['/a']);
    expect(target.paths()).toEqual(['/a']);
  });

  it('refuses to start on a bad configuration, with every diagnostic formatted as config check prints it', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, 'server "main" {\n  endpoint "/a" {\n    proxy {\n      backend = "nope"\n    }\n  }\n}\n');
    const failure = startManager([file]);
    await expect(failure).rejects.toThrow(`${file}:4,17-23: Undefined backend; backend reference 'nope' is not defined in definitions.`);
    await expect(failure).rejects.toMatchObject({ code: 'config_invalid' });
  });
});
