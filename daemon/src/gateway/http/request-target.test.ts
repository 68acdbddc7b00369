import { describe, expect, it } from 'vitest';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import { adminBehindCatchAll } from '../access/testing/endpoint-hcl.js';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { originForm } from './front-limits.js';
import { rawExchange } from './testing/raw-socket.js';

/** Sends one request line as given (no client normalises it) and gives the status line's code. */
async function sendTarget(base: string, target: string): Promise<number> {
  return statusOf(await sendRaw(base, `GET ${target} HTTP/1.1\r\nHost: ${new URL(base).host}\r\nConnection: close\r\n\r\n`));
}

/** Writes `raw` on a new connection and gives all the gateway sent until it closed the connection. */
const sendRaw = async (base: string, raw: string): Promise<string> => (await rawExchange(base, raw)).text;

const statusOf = (response: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);

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

  // RFC 9112 §3.2: a client sends the target's authority as Host; the peer selects by the target,
  // a proxy in front may have read either. One that differs is not read either way.
  it('refuses an absolute-form target whose host is not the Host header\'s, and serves one that is', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': adminBehindCatchAll(backend.origin) });
    const base = gw.url('/');
    const { host, hostname, port } = new URL(base);
    const ask = (target: string, hostHeader: string): Promise<string> => sendRaw(base, `GET ${target} HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`);
    for (const [target, hostHeader] of [
      [`http://admin.example/other`, host],
      [`http://${host}/other`, 'admin.example'],
      [`http://${hostname}:1/other`, host],
      [`http://user@${host}/other`, host],
    ] as const) {
      const answer = await ask(target, hostHeader);
      expect([target, hostHeader, statusOf(answer)]).toEqual([target, hostHeader, 400]);
    }
    const refused = accessLines(gw).filter((l) => l['status'] === 400).map((l) => String(l['message']));
    expect(refused[0]).toBe(`the request target names the host "admin.example" and the Host header "${host}"; send the same host in both (RFC 9112 §3.2)`);
    expect(refused[3]).toContain('user information');
    expect(backend.seen).toEqual([]);
    // The same host in another letter case, or with the scheme's default port written out or left out, is the same host.
    expect(statusOf(await ask(`HTTP://${hostname.toUpperCase()}:${port}/other`, host))).toBe(200);
    expect(statusOf(await ask(`http://${hostname}:80/other`, hostname))).toBe(200);
    expect(statusOf(await ask(`http://${hostname}/other`, `${hostname}:80`))).toBe(200);
    // HTTP/1.0 without a Host header: the target's authority is all there is.
    expect(statusOf(await sendRaw(base, `GET http://admin.example/other HTTP/1.0\r\n\r\n`))).toBe(200);
    expect(backend.seen.map((r) => r.url)).toEqual(['/other', '/other', '/other', '/other']);
  });

  // Node hands a CONNECT request over with its socket and, left alone, closes it without a word.
  it('answers CONNECT with 400 and an access line, then closes the connection (no tunnel, no backend)', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': adminBehindCatchAll(backend.origin) });
    const base = gw.url('/');
    const { host } = new URL(base);
    // Tunnel bytes right behind the head and a request pipelined after it: neither is read.
    const answer = await sendRaw(base, `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\nGET /other HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect(statusOf(answer)).toBe(400);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(statusOf(await sendRaw(base, `CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n`))).toBe(400);
    expect(backend.seen).toEqual([]);
    await expect.poll(() => accessLines(gw).filter((l) => l['method'] === 'CONNECT').length).toBe(2);
    const line = accessLines(gw).find((l) => l['method'] === 'CONNECT');
    expect(line).toMatchObject({ status: 400, error_type: 'client_request' });
    expect(String(line?.['message'])).toContain('host:port targets are not served');
    // The gateway goes on serving.
    expect(await sendTarget(base, '/other')).toBe(200);
  });
});
