import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { send, type RawResponse } from '../core/testing/raw-http.js';
import { webDashboard } from './static-files.js';

let dir: string;
let root: string;
let server: Server;
let port: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portico-dashboard-'));
  root = join(dir, 'dist');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>Portico</title>');
  writeFileSync(join(root, 'assets', 'index-AbCd1234.js'), 'console.log(1)');
  writeFileSync(join(root, 'favicon.svg'), '<svg/>');
  writeFileSync(join(dir, 'secret.txt'), 'TOP SECRET');
  symlinkSync(dir, join(root, 'out'));
  server = createServer((req, res) => void webDashboard(root)(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** A request with the path as written, so `/../x` reaches the server unnormalised. */
function get(path: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: RawResponse['headers']; body: string }> {
  return send(`http://127.0.0.1:${port}`, path, init).then((r) => ({ status: r.status, headers: r.headers, body: r.text }));
}

describe('web dashboard files', () => {
  it('serves assets with their type, caches hashed ones for a year and revalidates index.html', async () => {
    const js = await get('/assets/index-AbCd1234.js');
    expect(js).toMatchObject({ status: 200, body: 'console.log(1)' });
    expect(js.headers).toMatchObject({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable', 'content-length': '14' });
    const index = await get('/');
    expect(index.body).toContain('<title>Portico</title>');
    expect(index.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
    expect((await get('/favicon.svg')).headers['cache-control']).toBe('no-cache');
  });

  it('answers client-side routes and directories with index.html, and every answer carries the security headers', async () => {
    for (const path of ['/events', '/deliveries/abc?x=1', '/assets', '/assets/missing-AbCd1234.js']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.body, path).toContain('<title>Portico</title>');
      expect(res.headers['cache-control'], path).toBe('no-cache');
      expect(res.headers, path).toMatchObject({ 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
      expect(res.headers['content-security-policy'], path).toContain("default-src 'self'");
    }
  });

  it('never serves a file outside its folder: dot segments, encoded ones, backslashes and symlinks fall back to index.html', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/%2E%2E%2Fsecret.txt', '/..%5csecret.txt', '/out/secret.txt', '/a%00.txt']) {
      const res = await get(path);
      expect(res.body, path).not.toContain('TOP SECRET');
      expect(res.body, path).toContain('<title>Portico</title>');
    }
  });

  it('answers 304 to a browser revalidating with the ETag or Last-Modified it was given', async () => {
    const first = await get('/');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/"/);
    const byEtag = await get('/events', { headers: { 'if-none-match': etag } });
    expect(byEtag).toMatchObject({ status: 304, body: '' });
    expect(byEtag.headers['x-frame-options']).toBe('DENY');
    expect((await get('/', { headers: { 'if-modified-since': first.headers['last-modified'] as string } })).status).toBe(304);
    expect((await get('/', { headers: { 'if-none-match': 'W/"other"' } })).status).toBe(200);
  });

  it('answers HEAD without a body, other methods with 405', async () => {
    const head = await get('/assets/index-AbCd1234.js', { method: 'HEAD' });
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(head.headers['content-length']).toBe('14');
    const post = await get('/', { method: 'POST' });
    expect(post).toMatchObject({ status: 405, body: 'method not allowed\n' });
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it.skipIf(!existsSync('/proc/self/fd'))('closes the file when the client goes away mid-download', async () => {
    const big = join(root, 'assets', 'big-AbCd1234.js');
    writeFileSync(big, '');
    // Larger than the socket buffers can hold: the server is still reading it when the client leaves.
    truncateSync(big, 64 * 1024 * 1024);
    const openOnBig = (): number =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === big;
        } catch {
          return false; // closed since the listing
        }
      }).length;
    const socket = connect(port, '127.0.0.1');
    socket.write('GET /assets/big-AbCd1234.js HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    expect(openOnBig()).toBe(1);
    socket.destroy();
    await expect.poll(openOnBig).toBe(0);
  });

  it('says how to build the dashboard when it is not built', async () => {
    rmSync(root, { recursive: true });
    const res = await get('/');
    expect(res.status).toBe(503);
    expect(res.body).toMatch(/The web dashboard is not built \(no .*index\.html\)\. Run `npm run build`/);
  });
});
