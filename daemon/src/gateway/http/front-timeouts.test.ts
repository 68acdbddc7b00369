import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readGatewayFrontSettings } from './front-settings.js';
import { createEndpointHandler } from '../endpoint/endpoint-handler.js';
import { checkingIntervalMs } from './front-limits.js';
import { rawExchange, rawHeader } from './testing/raw-socket.js';
import { jsonRecords, startGateway } from './testing/test-gateway.js';

const CONFIG = {
  'portico.hcl': 'server {\n  hosts = ["*:0"]\n  endpoint "/**" {\n    response { body = "ok" }\n  }\n  endpoint "/upload" {\n    request_body_limit = "1MiB"\n    response { body = request.body }\n  }\n}\nsettings {\n  log_format = "json"\n}\n',
};

/**
 * No elapsed time is asserted. Each wait for the close is a deadline well below the default
 * of the setting under test (header 10 s, body 300 s, idle 60 s): a gateway that ignored the
 * shorter setting would keep the connection past it, and the test fails.
 */
const DEADLINE_MS = 8000;

const accessLines = (lines: readonly string[]) => jsonRecords(lines).filter((r) => r.type === 'gateway_access');

describe('front timeouts', () => {
  it('answers 408 and closes a client that sends its headers too slowly (slowloris)', async () => {
    const gw = await startGateway(CONFIG, { limits: { headerTimeoutMs: 300, bodyTimeoutMs: 2000 }, listenHost: '::' });
    // The client never stops sending header lines: only the header timeout ends this.
    const reply = await rawExchange(gw.url(), 'GET / HTTP/1.1\r\nHost: a\r\n', { drip: { text: 'X-Slow: 1\r\n', everyMs: 50 }, timeoutMs: DEADLINE_MS });
    expect(reply.status).toBe(408);
    expect(rawHeader(reply.text, 'gateway-error')).toBe('client request error');
    expect(rawHeader(reply.text, 'connection')).toBe('close');
    // An operator sees the attack: an access line per stalled connection, with what it sent.
    await expect.poll(() => accessLines(gw.lines)).toHaveLength(1);
    const [line] = accessLines(gw.lines);
    // The listener is dual-stack ("*:0"): its IPv4 address, not the mapped IPv6 form.
    expect(line).toMatchObject({ method: '-', url: `http://127.0.0.1:${new URL(gw.url()).port}/`, status: 408, client_ip: '127.0.0.1', error_type: 'client_request', message: expect.stringMatching(/PORTICO_GATEWAY_HEADER_TIMEOUT.*; \d+ bytes of a request received$/) });
    expect((line!.request as { bytes: number }).bytes).toBeGreaterThanOrEqual('GET / HTTP/1.1\r\nHost: a\r\n'.length);
  });

  it('answers 408 and closes a connection that sends nothing at all, without an access line', async () => {
    const gw = await startGateway(CONFIG, { limits: { headerTimeoutMs: 300, bodyTimeoutMs: 2000 } });
    const reply = await rawExchange(gw.url(), '', { timeoutMs: DEADLINE_MS });
    expect(reply.status).toBe(408);
    // A browser's preconnected socket does the same: nothing worth a line. A request after it is logged.
    expect((await fetch(gw.url('/after'))).status).toBe(200);
    await expect.poll(() => accessLines(gw.lines).map((r) => `${r.method} ${r.status}`)).toEqual(['GET 200']);
  });

  it('logs a request that stalls on a keep-alive connection after one that was answered', async () => {
    const gw = await startGateway(CONFIG, { limits: { headerTimeoutMs: 300, bodyTimeoutMs: 2000 } });
    const port = Number(new URL(gw.url()).port);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => socket.write('GET /first HTTP/1.1\r\nHost: a\r\n\r\n'));
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        // Answered: start a second request and never finish its headers.
        if (received.endsWith('ok')) socket.write('GET /second HTTP/1.1\r\nHo');
      });
      const deadline = setTimeout(() => reject(new Error(`still open after ${DEADLINE_MS}ms`)), DEADLINE_MS);
      socket.on('error', reject);
      socket.once('close', () => {
        clearTimeout(deadline);
        resolve(received);
      });
    });
    expect(text).toMatch(/HTTP\/1\.1 408/);
    await expect.poll(() => accessLines(gw.lines).map((r) => `${r.method} ${r.status}`)).toEqual(['GET 200', '- 408']);
    // The second request's bytes only, not the first's.
    expect((accessLines(gw.lines)[1]!.request as { bytes: number }).bytes).toBe('GET /second HTTP/1.1\r\nHo'.length);
  });

  it('drops a slowloris client within about 10 s by default (the effective settings, not a wait)', async () => {
    const daemonDefault = readGatewayFrontSettings({});
    const gw = await startGateway(CONFIG);
    for (const limits of [daemonDefault, gw.server.limits]) {
      expect(limits.headerTimeoutMs + checkingIntervalMs(limits)).toBeLessThanOrEqual(11_000);
      expect(limits.bodyTimeoutMs).toBeGreaterThanOrEqual(limits.headerTimeoutMs);
    }
    expect(gw.server.limits).toEqual(daemonDefault);
  });

  it('answers 408 through the pipeline when the body does not arrive in time, logs it, and closes', async () => {
    // The real endpoint handler, which reads the body for `request.body`.
    const gw = await startGateway(CONFIG, { limits: { headerTimeoutMs: 200, bodyTimeoutMs: 400 }, endpointHandler: createEndpointHandler() });
    // 3 of the 100 bytes announced, and nothing more: only the body timeout ends this.
    const reply = await rawExchange(gw.url(), 'POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\nabc', { timeoutMs: DEADLINE_MS });
    expect(reply.status).toBe(408);
    expect(rawHeader(reply.text, 'gateway-error')).toBe('client request error');
    expect(rawHeader(reply.text, 'connection')).toBe('close');
    expect(jsonRecords(gw.lines).find((r) => r.status === 408)).toMatchObject({ method: 'POST', endpoint: '/upload', error_type: 'client_request', message: expect.stringMatching(/PORTICO_GATEWAY_BODY_TIMEOUT/) });
  });

  it('advertises the idle timeout and closes a keep-alive connection idle past it, after answering on it', async () => {
    const gw = await startGateway(CONFIG, { limits: { idleTimeoutMs: 1000 } });
    const port = Number(new URL(gw.url()).port);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => socket.write('GET /a HTTP/1.1\r\nHost: a\r\n\r\n'));
      let received = '';
      let askedAgain = false;
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        // The first answer keeps the connection: ask once more on it, then leave it idle.
        if (!askedAgain && received.endsWith('ok')) {
          askedAgain = true;
          socket.write('GET /b HTTP/1.1\r\nHost: a\r\n\r\n');
        }
      });
      const deadline = setTimeout(() => {
        socket.destroy();
        reject(new Error(`the idle connection was still open after ${DEADLINE_MS}ms`));
      }, DEADLINE_MS);
      socket.on('error', reject);
      socket.once('close', () => {
        clearTimeout(deadline);
        resolve(received);
      });
    });
    expect(text.split('HTTP/1.1 200').length - 1).toBe(2);
    expect(rawHeader(text, 'keep-alive')).toBe('timeout=1');
  });
});
