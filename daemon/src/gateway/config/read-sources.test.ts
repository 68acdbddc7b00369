import { describe, expect, it } from 'vitest';
import type { Block, Body } from '../../hcl/index.js';
import { Diagnostics } from './diagnostics.js';
import { readSources } from './read-sources.js';

const file = (timeout: string): string =>
  ['definitions {', '  backend "a" {', '    origin = "http://a"', '  }', '  backend "b" {', `    connect_timeout = "${timeout}"`, '  }', '  backend "c" {', '    origin = "http://c"', '  }', '}', ''].join('\n');
const read = (path: string, text: string): { body: Body; diags: Diagnostics } => {
  const diags = new Diagnostics();
  const { files } = readSources([path], diags, new Map([[path, text]]));
  return { body: (files[0] as { body: Body }).body, diags };
};
const backends = (body: Body): Block[] => (body.blocks[0] as Block).body.blocks;

describe('readSources', () => {
  it('takes the unchanged blocks of a file read again from its last clean parse', () => {
    const path = '/virtual/read-sources-reuse.hcl';
    const first = read(path, file('5s'));
    const [a, , c] = backends(first.body);
    const second = read(path, file('6s'));
    expect(backends(second.body)[0]).toBe(a);
    expect(backends(second.body)[2]).toBe(c);
    // A broken save is reported as a whole parse reports it and is not kept; the next save parses against the last clean one.
    const broken = read(path, file('6s').replace('"http://c"', '"http://c'));
    expect(broken.diags.list.map((d) => d.summary)).toContain('Invalid multi-line string');
    const third = read(path, file('7s'));
    expect(backends(third.body)[0]).toBe(a);
    expect(third.diags.list).toEqual([]);
    // Another file of the same text is parsed on its own.
    expect(backends(read('/virtual/other.hcl', file('7s')).body)[0]).not.toBe(a);
  });
});
