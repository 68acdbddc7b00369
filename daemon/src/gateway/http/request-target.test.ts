import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import { adminBehindCatchAll } from '../access/testing/endpoint-hcl.js';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { originForm } from './front-limits.js';

/** Sends one request line as given (no client normalises it) and gives the status line's code. */
function sendTarget(base: string, target: string): Promise<number> {
  const { hostname, port, host } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

describe('request targets', () => {
  it('turns absolute-form into the path as sent and refuses any other form', () => {
    expect(originForm('/a/b?c')).toBe('/a/b?c');
    expect(originForm('http://h:8080/a/%2e?q')).toBe('/a/%2e?q');
    expect(originForm('HTTPS://h')).toBe('/');
    expect(originForm('http://h?q=1')).toBe('/?q=1');
    for (const bad of ['*', 'h:443', 'a/b', 'ftp://h/a', '']) expect(originForm(bad), bad).toBeNull();
  });

  // Each of these reached a protected "/admin" through an open "/**" before 2026-12-02: the
  // backend (or the URL the gateway built for it) resolved them to "/admin" after routing had not.
  it('never lets a form of the path reach a protected route through an open catch-all', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': adminBehindCatchAll(backend.origin) });
    const base = gw.url('/');
    const { host } = new URL(base);
    const protectedForms = [`http://${host}/admin`, `HTTP://${host}/admin/`, '//admin', '/admin/', '/%61dmin', '/admin%2F'];
    for (const target of protectedForms) expect([target, await sendTarget(base, target)]).toEqual([target, 401]);
    for (const target of ['/admin#x', '/x#/../admin', '*', 'admin', '/./admin', '/x/../admin', '/x/..%2Fadmin']) expect([target, await sendTarget(base, target)]).toEqual([target, 400]);
    expect(backend.seen).toEqual([]);
    expect(accessLines(gw).filter((l) => l['status'] === 400).map((l) => l['error_type'])).toEqual(Array(7).fill('client_request'));
    // What is not the protected path reaches the catch-all, as sent.
    expect(await sendTarget(base, `http://${host}/other?q=1`)).toBe(200);
    expect(await sendTarget(base, '/admins')).toBe(200);
    expect(backend.seen.map((r) => r.url)).toEqual(['/other?q=1', '/admins']);
  });
});
