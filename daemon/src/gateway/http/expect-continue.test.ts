import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import { adminBehindCatchAll } from '../access/testing/endpoint-hcl.js';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { rawExchange } from './testing/raw-socket.js';

/**
 * Sends a POST with `Expect: 100-continue` and a 5-byte body that it sends only after a 100
 * (or at once with `eager`); gives what came back until the gateway closed the connection or
 * `waitMs` passed, and whether the body was sent.
 */
function postExpecting(base: string, path: string, { eager = false, auth = '', waitMs = 1500 } = {}): Promise<{ text: string; sentBody: boolean; closed: boolean }> {
  const { hostname, port, host } = new URL(base);
  return new Promise((resolve, reject) => {
    let text = '';
    let sentBody = eager;
    const head = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 5\r\nExpect: 100-continue\r\n${auth}\r\n`;
    const socket = connect(Number(port), hostname, () => socket.write(eager ? `${head}hello` : head));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (!sentBody && text.startsWith('HTTP/1.1 100 ')) {
        sentBody = true;
        socket.write('hello');
      }
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, sentBody, closed: false });
    }, waitMs);
    socket.on('end', () => {
      clearTimeout(timer);
      resolve({ text, sentBody, closed: true });
    });
    socket.on('error', reject);
  });
}

describe('Expect: 100-continue', () => {
  it('answers a refused request without asking for its body, and asks for it once a backend reads it', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': adminBehindCatchAll(backend.origin) });
    const base = gw.url('/');

    // The access control refuses: 401 at once, no 100, the body never sent, the connection closed.
    const refused = await postExpecting(base, '/admin');
    expect(refused.text).toMatch(/^HTTP\/1\.1 401 /);
    expect(refused.text).not.toContain('100 Continue');
    expect(refused.sentBody).toBe(false);
    expect(refused.closed).toBe(true);
    expect(refused.text).toMatch(/\r\nconnection: close\r\n/i);

    // A proxied route: the 100 comes, the body follows, the backend gets it.
    const served = await postExpecting(base, '/upload');
    expect(served.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(served.sentBody).toBe(true);
    // With the right credentials the protected route asks for the body too.
    const allowed = await postExpecting(base, '/admin', { auth: `Authorization: Basic ${Buffer.from(':pw').toString('base64')}\r\n` });
    expect(allowed.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(backend.seen.map((r) => [r.url, r.body])).toEqual([
      ['/upload', 'hello'],
      ['/admin', 'hello'],
    ]);
    // The backend never sees the expectation (the gateway already answered it).
    expect(backend.seen.every((r) => r.headers['expect'] === undefined)).toBe(true);

    // A client that sends its body without waiting is answered as before, and nothing of the body is read as a request.
    const eager = await postExpecting(base, '/admin', { eager: true });
    expect(eager.text).toMatch(/^HTTP\/1\.1 401 /);
    expect(eager.text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(accessLines(gw).map((l) => [l['method'], l['status']])).toEqual([
      ['POST', 401],
      ['POST', 200],
      ['POST', 200],
      ['POST', 401],
    ]);
  });

  it('refuses any other expectation with 417 and an access line; HTTP/1.0 ignores Expect', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': adminBehindCatchAll(backend.origin) });
    const { host } = new URL(gw.url('/'));
    const exchange = async (head: string): Promise<string> => (await rawExchange(gw.url('/'), head)).text;
    const refused = await exchange(`GET /x HTTP/1.1\r\nHost: ${host}\r\nExpect: teapot\r\n\r\n`);
    expect(refused).toMatch(/^HTTP\/1\.1 417 /);
    expect(refused).toMatch(/\r\nconnection: close\r\n/i);
    expect(await exchange(`GET /x HTTP/1.0\r\nHost: ${host}\r\nExpect: teapot\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 /);
    expect(backend.seen.map((r) => r.url)).toEqual(['/x']);
    expect(accessLines(gw).map((l) => [l['status'], l['error_type'] ?? null, l['message'] ?? null])).toEqual([
      [417, 'client_request', 'the expectation "teapot" cannot be met; only "100-continue" is understood'],
      [200, null, null],
    ]);
  });

  it('answers a response block without asking for the body it does not read', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': adminBehindCatchAll(backend.origin, '  endpoint "/static" {\n    response { body = "fixed" }\n  }') });
    const answered = await postExpecting(gw.url('/'), '/static');
    expect(answered.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(answered.text).not.toContain('100 Continue');
    expect(answered.text).toContain('fixed');
    expect(answered.sentBody).toBe(false);
    expect(answered.closed).toBe(true);
  });
});
