import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfigSources } from './config-sources.js';

describe('resolveConfigSources', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-sources-'));
  const base = join(dir, 'base.hcl');
  const confd = join(dir, 'conf.d');
  writeFileSync(base, 'server {}\n');
  mkdirSync(confd);
  writeFileSync(join(confd, 'b.hcl'), '');
  writeFileSync(join(confd, 'a.hcl'), '');
  writeFileSync(join(confd, 'notes.txt'), '');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists -f files, then each directory\'s *.hcl by name, and keeps the sources as given', () => {
    expect(resolveConfigSources([base], [confd], undefined)).toEqual({
      files: [base, join(confd, 'a.hcl'), join(confd, 'b.hcl')],
      paths: [base, confd],
    });
  });

  it('falls back to PORTICO_CONFIG, and names what is wrong with a source', () => {
    expect(resolveConfigSources([], [], base)).toEqual({ files: [base], paths: [base] });
    expect(() => resolveConfigSources([join(dir, 'missing.hcl')], [], undefined)).toThrow(/configuration file .*missing\.hcl: /);
    expect(() => resolveConfigSources([], [base], undefined)).toThrow(/configuration directory .*base\.hcl: not a directory/);
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    expect(() => resolveConfigSources([], [empty], undefined)).toThrow(/holds no \*\.hcl file/);
  });
});
