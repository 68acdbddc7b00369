import { describe, expect, it } from 'vitest';
import { configText, join, MemoryLogger, RecordingTarget, startManager, tempDir, writeFileSync } from './testing/config-files.js';

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

  it('records the cause first with the lines of the file as saved (not the one serving), secret values hidden', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    const secrets = 'definitions {\n  backend "api" {\n    origin     = "http://127.0.0.1:1"\n    basic_auth = "ops:s3cr3t"\n  }\n}\n';
    writeFileSync(file, configText(['/a']) + secrets);
    const { manager } = await startManager([file]);

    // One quote left open inside the server block: one diagnostic, at the string.
    writeFileSync(file, configText(['/a']).replace('status = 204', 'status = "204') + secrets.replace('origin     = "http://127.0.0.1:1"', 'origin     = "http://127.0.0.1:1"\n    port = 1'));
    await expect.poll(() => manager.history()[0]?.result).toBe('rejected');
    const [cause, ...rest] = manager.history()[0]!.diagnostics;
    expect(rest).toEqual([]);
    expect(cause).toMatchObject({ line: 4, column: 16, endLine: 4, endColumn: 20, summary: 'Invalid multi-line string' });
    expect(cause!.excerpt).toEqual({ firstLine: 3, lines: ['    response {', '      status = "204', '    }'], line: 4, startColumn: 16, endColumn: 20 });

    // A structure error next to a secret: the excerpt shows the saved line, the secret as ***.
    writeFileSync(file, configText(['/a']) + secrets.replace('    basic_auth', '    bogus      = 1\n    basic_auth'));
    await expect.poll(() => manager.history()[0]?.diagnostics[0]?.summary).toBe('Unsupported argument');
    const bogus = manager.history()[0]!.diagnostics[0]!;
    expect(bogus.excerpt).toEqual({ firstLine: 10, lines: ['    origin     = "http://127.0.0.1:1"', '    bogus      = 1', '    basic_auth = "***"'], line: 11, startColumn: 5, endColumn: 10 });
    expect(JSON.stringify(manager.history())).not.toContain('s3cr3t');
    // What serves is still the first text: the excerpt did not come from it.
    expect(manager.activeSources()[0]!.text).not.toContain('bogus');
  });

  it('keeps the old configuration when building the new runtime throws, recording the error', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const { manager, target, logger } = await startManager([file]);
    target.failWith = 'listen EADDRINUSE: address already in use 0.0.0.0:8080';
    writeFileSync(file, configText(['/b']));
    await expect.poll(() => manager.history()[0]?.result).toBe('failed');
    expect(manager.history()[0]!.error).toBe('listen EADDRINUSE: address already in use 0.0.0.0:8080');
    expect(logger.lines.filter((l) => l.level === 'error').map((l) => l.message)).toEqual(['gateway configuration not applied (file): listen EADDRINUSE: address already in use 0.0.0.0:8080; the previous one keeps serving']);
    expect(manager.config?.servers[0]?.endpoints.map((e) => e.path)).toEqual(['/a']);
    expect(target.paths()).toEqual(['/a']);
  });

  it('at start, with nothing serving yet, does not say a previous configuration keeps serving', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, configText(['/a']));
    const target = new RecordingTarget();
    target.failWith = 'gateway: cannot listen on *:8080: EADDRINUSE';
    const logger = new MemoryLogger();
    await expect(startManager([file], { target, logger })).rejects.toThrow('EADDRINUSE');
    expect(logger.lines.filter((l) => l.level === 'error').map((l) => l.message)).toEqual(['gateway configuration not applied (start): gateway: cannot listen on *:8080: EADDRINUSE']);
  });

  it('refuses to start on a bad configuration, with every diagnostic and its lines as config check prints them', async () => {
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(file, 'server "main" {\n  endpoint "/a" {\n    proxy {\n      backend = "nope"\n    }\n  }\n}\n');
    const failure = startManager([file]);
    await expect(failure).rejects.toThrow(
      `${file}:4,17-23: Undefined backend; backend reference 'nope' is not defined in definitions.\n  3 │     proxy {\n  4 │       backend = "nope"\n    │                 ^~~~~~\n  5 │     }`,
    );
    await expect(failure).rejects.toMatchObject({ code: 'config_invalid' });
  });
});
