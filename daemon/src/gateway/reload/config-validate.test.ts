import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configText, join, startManager, tempDir, writeFileSync } from './testing/config-files.js';
import { CandidateFileError } from './validate-candidate.js';
import { keptParsePaths } from '../config/read-sources.js';

/** The files in `dir` (the candidate's hidden one included) whose parse the loader keeps. */
const keptParses = (dir: string): string[] => keptParsePaths().filter((path) => path.startsWith(`${dir}/`)).sort();

async function twoFiles(): Promise<{ dir: string; main: string; backends: string }> {
  const dir = tempDir();
  const main = join(dir, 'portico.hcl');
  const backends = join(dir, 'backends.hcl');
  writeFileSync(main, configText(['/a']));
  writeFileSync(backends, 'definitions {\n  backend "api" {\n    origin = "http://127.0.0.1:1"\n  }\n}\n');
  return { dir, main, backends };
}

describe('validate', () => {
  it('checks a candidate in place of one active file, naming that file in the diagnostics, without applying it', async () => {
    const { dir, main, backends } = await twoFiles();
    const { manager, target } = await startManager([main, backends]);
    const result = await manager.validate('definitions {\n  backend "api" {\n    origin = "ftp://x"\n  }\n}\n', 'backends.hcl');
    expect(result.ok).toBe(false);
    expect(result.file).toBe(backends);
    expect(result.diagnostics[0]).toMatchObject({ file: backends, line: 3, summary: 'Invalid backend.origin value' });
    expect(result.diagnostics[0]!.text.startsWith(`${backends}:3,`)).toBe(true);
    expect(target.applied).toHaveLength(1);
    // The candidate file is gone again, and so is its parse; the active files' are kept for their next save.
    expect(readdirSync(dir).sort()).toEqual(['backends.hcl', 'portico.hcl']);
    expect(keptParses(dir)).toEqual([backends, main].sort());
  });

  it('reports what a valid candidate would change', async () => {
    const { main, backends } = await twoFiles();
    const { manager } = await startManager([main, backends]);
    const result = await manager.validate(configText(['/a', '/new']), main);
    expect(result).toMatchObject({ ok: true, diagnostics: [] });
    expect(result.diff?.summary).toBe('+1 endpoint (/new)');
  });

  it('checks a text alone when no file is named', async () => {
    const { main } = await twoFiles();
    const { manager } = await startManager([main]);
    const result = await manager.validate('settings {\n  log_format = "common"\n}\n');
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.text)).toContain("configuration error: missing 'server' block");
  });

  it('refuses a file that is not one of the active configuration files', async () => {
    const { main } = await twoFiles();
    const { manager } = await startManager([main]);
    await expect(manager.validate(configText(['/a']), 'other.hcl')).rejects.toThrow(CandidateFileError);
    await expect(manager.validate(configText(['/a']), 'other.hcl')).rejects.toThrow(/"other.hcl" is not one of the active configuration files/);
  });
});
