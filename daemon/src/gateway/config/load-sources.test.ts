import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './load.js';
import { load, tempFiles } from './testing/config-files.js';

describe('reading configuration files', () => {
  it('gives the SHA-256 of each file read, in load order', async () => {
    const text = 'server {}\n';
    const { sources, config } = await load({ 'a.hcl': text, 'b.hcl': '' });
    expect(config).not.toBeNull();
    expect(sources.map((s) => [s.path.split('/').pop(), s.sha256])).toEqual([
      ['a.hcl', createHash('sha256').update(text).digest('hex')],
      ['b.hcl', createHash('sha256').update('').digest('hex')],
    ]);
  });

  it('reports files that cannot be read, without a position', async () => {
    const dir = tempFiles({ 'a.hcl': 'server {}\n', 'empty/readme.txt': '' });
    const { config, diagnostics } = await loadGatewayConfig([join(dir, 'a.hcl'), join(dir, 'missing.hcl'), join(dir, 'empty')], {});
    expect(config).toBeNull();
    expect(diagnostics.map((d) => `${d.summary.replace(`${dir}/`, '')}|${d.range === undefined}`)).toEqual([
      'empty: directory holds no *.hcl file|true',
      'missing.hcl: file not found|true',
    ]);
  });

  it('reports invalid UTF-8 at the first bad byte', async () => {
    const bytes = Buffer.concat([Buffer.from('server {\n  base_path = "/caf'), Buffer.from([0xe9]), Buffer.from('"\n}\n')]);
    expect((await load({ 'latin1.hcl': bytes })).messages).toEqual([
      'latin1.hcl:2,20-21: Invalid character encoding; All input files must be UTF-8 encoded. Ensure that UTF-8 encoding is selected in your editor.',
    ]);
  });

  it('reports syntax errors of one file and structure errors of another in one run, and stops there', async () => {
    const { config, messages } = await load({
      'syntax.hcl': 'server {\n  hosts = [\n}\n',
      'structure.hcl': 'server {\n  hostz = ["*:8080"]\n  endpoint {}\n}\n',
      'model.hcl': 'settings {\n  log_format = "xml"\n}\n',
    });
    expect(config).toBeNull();
    expect(messages.some((m) => m.startsWith('syntax.hcl:'))).toBe(true);
    expect(messages.filter((m) => !m.startsWith('syntax.hcl:'))).toEqual([
      'structure.hcl:2,3-8: Unsupported argument; An argument named "hostz" is not expected here.',
      'structure.hcl:3,3-11: Missing pattern for endpoint; All endpoint blocks must have 1 labels (pattern).',
    ]);
  });

  it('sorts problems by file in load order, then by position', async () => {
    const { messages } = await load(
      {
        'conf.d/b.hcl': 'settings {\n  log_level = "loud"\n  log_format = "xml"\n}\n',
        'conf.d/a.hcl': 'server {\n  hosts = "*"\n}\n',
      },
      {},
      ['conf.d'],
    );
    expect(messages.map((m) => m.split(':').slice(0, 2).join(':'))).toEqual(['conf.d/a.hcl:2,11-14', 'conf.d/b.hcl:2,15-21', 'conf.d/b.hcl:3,16-21']);
  });

  it('needs at least one file', async () => {
    expect((await loadGatewayConfig([], {})).diagnostics.map((d) => d.summary)).toEqual(['no configuration file given']);
  });
});
