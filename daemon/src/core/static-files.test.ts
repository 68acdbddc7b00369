import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lookupStaticFile, safeSegments, staticFileResponse, statStaticFile, type StaticFile } from './static-files.js';

let dir: string;
let root: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'portico-static-'));
  root = join(dir, 'root');
  mkdirSync(join(root, 'docs'), { recursive: true });
  mkdirSync(join(root, 'empty'));
  writeFileSync(join(root, 'index.html'), '<h1>home</h1>');
  writeFileSync(join(root, 'docs', 'index.html'), '<h1>docs</h1>');
  writeFileSync(join(root, 'site.css'), 'body { color: red }');
  writeFileSync(join(root, 'with space.txt'), 'spaced');
  writeFileSync(join(dir, 'secret.txt'), 'TOP SECRET');
  symlinkSync(dir, join(root, 'out'));
  symlinkSync(join(root, 'site.css'), join(root, 'alias.css'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function fileAt(rest: string, slash = rest.endsWith('/')): Promise<StaticFile> {
  const found = await lookupStaticFile(root, rest, { slash });
  if (found.kind !== 'file') throw new Error(`${rest}: ${found.kind}`);
  return found.file;
}

describe('lookupStaticFile', () => {
  it('finds files by their encoded path, and a directory with its slash as its index file', async () => {
    expect((await fileAt('site.css')).path).toBe(join(root, 'site.css'));
    expect((await fileAt('with%20space.txt')).size).toBe(6);
    expect((await fileAt('', true)).path).toBe(join(root, 'index.html'));
    expect((await fileAt('docs/')).path).toBe(join(root, 'docs', 'index.html'));
  });

  it('tells a directory named without its slash apart, and a directory without an index from a file', async () => {
    expect(await lookupStaticFile(root, 'docs', { slash: false })).toEqual({ kind: 'directory-without-slash' });
    expect(await lookupStaticFile(root, 'empty/', { slash: true })).toEqual({ kind: 'missing' });
    expect(await lookupStaticFile(root, 'nope.txt', { slash: false })).toEqual({ kind: 'missing' });
  });

  it('never leaves the root: dot segments, encoded slashes and backslashes, NUL, bad encodings, symlinks out', async () => {
    for (const rest of ['../secret.txt', '%2e%2e/secret.txt', '%2E%2E%2Fsecret.txt', '..%5csecret.txt', 'a%00.txt', '%zz', 'out/secret.txt', './../secret.txt']) {
      expect(await lookupStaticFile(root, rest, { slash: false }), rest).toEqual({ kind: 'missing' });
    }
    // A symlink that stays inside the root is followed.
    expect((await fileAt('alias.css')).path).toBe(join(root, 'site.css'));
    expect(safeSegments('a/%C3%A9/b')).toEqual(['a', 'é', 'b']);
  });
});

describe('staticFileResponse', () => {
  it('answers with the content type, length, Last-Modified and a weak ETag, and no body for HEAD', async () => {
    const file = await fileAt('site.css');
    const get = staticFileResponse(file, 'GET', {});
    expect(get.status).toBe(200);
    expect(get.headers).toMatchObject({ 'content-type': 'text/css; charset=utf-8', 'content-length': '19' });
    expect(get.headers.etag).toMatch(/^W\/"13-[0-9a-f]+"$/);
    expect(await text(get.body!)).toBe('body { color: red }');
    const head = staticFileResponse(file, 'HEAD', {});
    expect(head).toMatchObject({ status: 200, body: null, headers: { 'content-length': '19' } });
  });

  it('answers 304 for a matching ETag (weak, strong form or *) or an If-Modified-Since not before the file', async () => {
    utimesSync(join(root, 'site.css'), new Date('2024-05-01T10:00:00Z'), new Date('2024-05-01T10:00:00Z'));
    const file = await fileAt('site.css');
    const { etag, 'last-modified': lastModified } = staticFileResponse(file, 'HEAD', {}).headers;
    expect(lastModified).toBe('Wed, 01 May 2024 10:00:00 GMT');
    for (const inm of [etag!, etag!.slice(2), `"other", ${etag!}`, '*']) {
      const res = staticFileResponse(file, 'GET', { 'if-none-match': inm });
      expect(res.status, inm).toBe(304);
      expect(res.body).toBeNull();
      expect(res.headers['content-length']).toBeUndefined();
    }
    expect(staticFileResponse(file, 'HEAD', { 'if-none-match': '"other"' }).status).toBe(200);
    expect(staticFileResponse(file, 'GET', { 'if-modified-since': lastModified! }).status).toBe(304);
    expect(staticFileResponse(file, 'HEAD', { 'if-modified-since': 'Tue, 30 Apr 2024 10:00:00 GMT' }).status).toBe(200);
    // If-None-Match decides when both are sent.
    expect(staticFileResponse(file, 'HEAD', { 'if-none-match': '"other"', 'if-modified-since': lastModified! }).status).toBe(200);
  });

  it('names unknown extensions octet streams', async () => {
    writeFileSync(join(root, 'blob.bin'), 'xyz');
    expect(staticFileResponse((await statStaticFile(join(root, 'blob.bin')))!, 'HEAD', {}).headers['content-type']).toBe('application/octet-stream');
    expect(await statStaticFile(join(root, 'docs'))).toBeNull();
    expect(await statStaticFile(join(root, 'nope'))).toBeNull();
  });
});
