import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseUrl } from './parse-url.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** A one-byte string with a non-ASCII (Latin-1) character, cut from a longer one as a lexer cuts a literal. */
const latin1 = (n: number): string => {
  const text = `${'x'.repeat(n % 7)}http://ä:80${'y'.repeat(40)}`;
  const at = text.indexOf('http');
  return text.slice(at, at + 11);
};

describe('parseUrl', () => {
  it('parses URLs with non-ASCII characters however often it is called (URL.canParse does not, here)', () => {
    const calls = 20_000;
    let refusedByCanParse = 0;
    for (let i = 0; i < calls; i++) {
      const url = parseUrl(latin1(i));
      expect(url?.host).toBe('xn--4ca');
      if (!URL.canParse(latin1(i))) refusedByCanParse += 1;
    }
    // What the helper is for: on this Node the built-in starts refusing once optimized. (Node 24
    // fixed it; there this count is 0 and the helper merely costs an exception per bad URL.)
    if (Number(process.versions.node.split('.')[0]) < 24) expect(refusedByCanParse).toBeGreaterThan(0);
  });

  it('gives null for what is not a URL, and resolves against a base', () => {
    expect(parseUrl('not a url')).toBeNull();
    expect(parseUrl('http://')).toBeNull();
    expect(parseUrl('/a b', 'http://base.invalid')?.pathname).toBe('/a%20b');
  });

  it('is the only way the daemon checks a URL: no URL.canParse in its sources', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => !file.endsWith('parse-url.ts'))
      .filter((file) => /URL\.canParse\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });
});
