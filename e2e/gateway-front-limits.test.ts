// The gateway front through the daemon: a slowloris client (headers dripping in) is answered
// 408 and dropped after PORTICO_GATEWAY_HEADER_TIMEOUT, a long target 414 and large headers
// 431 after PORTICO_GATEWAY_MAX_URL_LENGTH / _MAX_HEADER_SIZE, and settings.https_dev_proxy
// answers over TLS with the certificate the daemon generated and keeps in its data dir; a body
// that drips past PORTICO_GATEWAY_BODY_TIMEOUT is answered 408, an idle keep-alive connection is
// closed after PORTICO_GATEWAY_IDLE_TIMEOUT, and a connection past PORTICO_GATEWAY_MAX_CONNECTIONS
// is closed unanswered.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKept } from '../daemon/src/gateway/http/testing/raw-socket.js';
import { freePort, startDaemon, type DaemonHandle } from './harness.js';

function slowClient(port: number): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let text = '';
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write('GET /hello HTTP/1.1\r\nHost: localhost\r\n'));
    const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 200);
    // Short of the 10 s default: a daemon that ignored PORTICO_GATEWAY_HEADER_TIMEOUT fails here.
    const limit = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the gateway held the slow client for 8 s; received ${JSON.stringify(text)}`));
    }, 8_000);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearInterval(drip);
      clearTimeout(limit);
      resolve({ text, closedAfterMs: performance.now() - started });
    });
  });
}

/** Writes `head`, then `drip` every 300 ms (when given), and resolves with what came back once the gateway closed the connection (the test's 8-s limit short of the defaults). */
function exchange(port: number, head: string, drip: string | null): Promise<{ text: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(head));
    const timer = drip === null ? null : setInterval(() => socket.writable && socket.write(drip), 300);
    const limit = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the gateway kept the connection for 8 s; received ${JSON.stringify(text)}`));
    }, 8_000);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      if (timer) clearInterval(timer);
      clearTimeout(limit);
      resolve({ text });
    });
  });
}

function getTls(port: number, path: string, ca: string): Promise<{ status: number; text: string; requestId: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, servername: 'localhost', ca, agent: false, headers: { host: `localhost:${port}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, requestId: res.headers['gateway-request-id'] as string | undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('gateway front limits through the daemon', () => {
  let dir: string;
  let daemon: DaemonHandle;
  let plain: number;
  let tls: number;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portico-e2e-front-'));
    plain = await freePort();
    tls = await freePort();
    const file = join(dir, 'front.hcl');
    writeFileSync(
      file,
      `server {\n  hosts = ["*:${plain}"]\n  endpoint "/hello" {\n    response { body = "hello from \${request.url}" }\n  }\n  endpoint "/echo" {\n    response { body = request.body }\n  }\n}\nsettings {\n  https_dev_proxy = ["${tls}:${plain}"]\n}\n`,
    );
    daemon = await startDaemon({
      args: ['-f', file],
      env: { PORTICO_GATEWAY_HEADER_TIMEOUT: '1s', PORTICO_GATEWAY_BODY_TIMEOUT: '2s', PORTICO_GATEWAY_IDLE_TIMEOUT: '1s', PORTICO_GATEWAY_MAX_URL_LENGTH: '512', PORTICO_GATEWAY_MAX_HEADER_SIZE: '2048' },
    });
  });
  afterAll(async () => {
    await daemon?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a slowloris client 408 and closes its connection after the header timeout', async () => {
    const { text, closedAfterMs } = await slowClient(plain);
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(text).toMatch(/\r\ngateway-error: client request error\r\n/i);
    // Not before the configured second (the drip keeps the connection busy); an upper bound is the client's 8 s limit, not a window here.
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    // The gateway still serves everyone else.
    const res = await fetch(`http://127.0.0.1:${plain}/hello`);
    expect(await res.text()).toBe(`hello from http://127.0.0.1:${plain}/hello`);
  });

  it('answers a body that does not arrive within PORTICO_GATEWAY_BODY_TIMEOUT 408, and closes an idle keep-alive connection after PORTICO_GATEWAY_IDLE_TIMEOUT', async () => {
    // A body of 100 bytes, 10 sent, then a byte every 300 ms: under the 5-minute default it would be read to the end.
    const slowBody = await exchange(plain, 'POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n0123456789', 'x');
    expect(slowBody.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(slowBody.text).toMatch(/\r\nconnection: close\r\n/i);
    await expect.poll(() => daemon.logs()).toContain('PORTICO_GATEWAY_BODY_TIMEOUT');
    // One answered request, then nothing: the connection is closed after the idle second (Node adds one), not the 60-s default.
    const idle = await exchange(plain, 'GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n', null);
    expect(idle.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(idle.text).toMatch(/keep-alive: timeout=1\r\n/i);
  });

  it('answers over TLS on the https_dev_proxy port like the plain port, with a certificate kept 0600 in the data dir', async () => {
    const certFile = join(daemon.dataDir, 'https-dev-proxy.crt');
    expect(statSync(certFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(daemon.dataDir, 'https-dev-proxy.key')).mode & 0o777).toBe(0o600);
    const reply = await getTls(tls, '/hello', readFileSync(certFile, 'utf8'));
    expect(reply).toMatchObject({ status: 200, text: `hello from https://localhost:${tls}/hello` });
    // The access line is written once the answer went out.
    await expect.poll(() => daemon.logs()).toContain(`"GET https://localhost:${tls}/hello" 200`);
    expect(daemon.logs()).toContain(`id=${reply.requestId}`);
  });
  it('answers a target over PORTICO_GATEWAY_MAX_URL_LENGTH 414 and headers over PORTICO_GATEWAY_MAX_HEADER_SIZE 431', async () => {
    // Both under the defaults (8 KiB target, 16 KiB headers): a daemon that ignored the variables answers 200.
    const query = `?q=${'a'.repeat(600)}`;
    expect((await fetch(`http://127.0.0.1:${plain}/hello${query.slice(0, 400)}`)).status).toBe(200);
    const long = await fetch(`http://127.0.0.1:${plain}/hello${query}`);
    expect(long.status).toBe(414);
    expect(long.headers.get('gateway-error')).toBe('client request error');
    expect((await fetch(`http://127.0.0.1:${plain}/hello`, { headers: { 'x-big': 'b'.repeat(1500) } })).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${plain}/hello`, { headers: { 'x-big': 'b'.repeat(3000) } })).status).toBe(431);
    await expect.poll(() => daemon.logs()).toContain('PORTICO_GATEWAY_MAX_URL_LENGTH');
  });
});

describe('the connection cap through the daemon', () => {
  it('closes a connection past PORTICO_GATEWAY_MAX_CONNECTIONS unanswered and keeps serving the ones it holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-e2e-cap-'));
    const port = await freePort();
    const file = join(dir, 'cap.hcl');
    writeFileSync(file, `server {\n  hosts = ["*:${port}"]\n  endpoint "/**" {\n    response { body = "ok" }\n  }\n}\n`);
    const daemon = await startDaemon({ args: ['-f', file], env: { PORTICO_GATEWAY_MAX_CONNECTIONS: '2' } });
    try {
      const kept = [await openKept(port), await openKept(port)];
      for (const c of kept) expect(await c.ask()).toBe('HTTP/1.1 200 OK');
      // Under the default of 4,096 a third would be answered 200.
      const extra = await openKept(port);
      expect(await extra.ask()).toBeNull();
      for (const c of kept) expect(await c.ask()).toBe('HTTP/1.1 200 OK');
      await expect.poll(() => daemon.logs()).toContain('connection limit reached');
      for (const c of kept) c.socket.destroy();
    } finally {
      await daemon.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
