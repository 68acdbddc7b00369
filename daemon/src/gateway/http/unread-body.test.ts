import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startBackend, startEndpointGateway } from '../endpoint/testing/endpoint-gateway.js';
import { DROP_LIMIT_BYTES } from './unread-body.js';

// An answer ready before the client sent all of its body (Go's server, the peer's: up to 256 KiB
// of such a rest are dropped and the connection kept).
const HCL = (origin: string): string => `
server {
  hosts = ["*:0"]
  endpoint "/guarded" {
    access_control = ["ba"]
    proxy { backend = "b" }
  }
  endpoint "/answer" {
    response { body = "answered" }
  }
}
definitions {
  backend "b" { origin = "${origin}" }
  basic_auth "ba" { password = "pw" }
}
`;

/** A raw connection: what the gateway sent so far, and a wait for more of it. */
function rawClient(port: number): { socket: Socket; text(): string; until(pattern: RegExp, ms?: number): Promise<string>; ended: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  const waiters: (() => void)[] = [];
  socket.on('data', (c: Buffer) => {
    received += c.toString('latin1');
    for (const w of waiters.splice(0)) w();
  });
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  return {
    socket,
    text: () => received,
    ended,
    until: (pattern, ms = 5000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${ms} ms; got ${JSON.stringify(received)}`)), ms);
        const check = (): void => {
          if (pattern.test(received)) {
            clearTimeout(timer);
            resolve(received);
          } else waiters.push(check);
        };
        check();
      }),
  };
}

const heads = (text: string): string[] => text.split(/(?=HTTP\/1\.1 \d{3} )/).map((r) => r.split('\r\n\r\n')[0]!.toLowerCase());
/** One answer, 200, that ends its connection (no second answer follows). */
function expectOneAnswerThenClose(text: string): void {
  const all = heads(text);
  expect(all).toHaveLength(1);
  expect(all[0]).toMatch(/^http\/1\.1 200 /);
  expect(all[0]).toContain('connection: close');
}
const NEXT = 'GET /answer HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

async function gatewayPort(): Promise<number> {
  const backend = await startBackend();
  const gw = await startEndpointGateway(HCL(backend.origin));
  return Number(new URL(gw.url('/')).port);
}

describe('a request body still arriving when the answer is ready', () => {
  it('a short rest nobody reads keeps the connection: a 401 goes at once and the next request is answered', async () => {
    const client = rawClient(await gatewayPort());
    client.socket.write('POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2048\r\n\r\n');
    // The refusal needs none of the body: it comes before the client sent it.
    await client.until(/^HTTP\/1\.1 401 [\s\S]*\r\n\r\n/);
    client.socket.write('x'.repeat(2048) + NEXT);
    await client.ended;
    const [first, second] = heads(client.text());
    expect(first).toMatch(/^http\/1\.1 401 /);
    expect(first).not.toContain('connection: close');
    expect(second).toMatch(/^http\/1\.1 200 /);
    expect(client.text()).toContain('answered');
  });

  it('a rest of 256 KiB or more ends the connection after the answer', async () => {
    const client = rawClient(await gatewayPort());
    client.socket.write(`POST /answer HTTP/1.1\r\nHost: x\r\nContent-Length: ${DROP_LIMIT_BYTES}\r\n\r\n${'x'.repeat(1024)}`);
    await client.ended;
    expectOneAnswerThenClose(client.text());
  });

  it('a chunked rest is dropped before the answer when it ends within 256 KiB, and the connection stays', async () => {
    const client = rawClient(await gatewayPort());
    client.socket.write('POST /answer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
    // Its length is known only at its end: no answer yet.
    await new Promise((r) => setTimeout(r, 150));
    expect(client.text()).toBe('');
    client.socket.write(`4000\r\n${'y'.repeat(0x4000)}\r\n0\r\n\r\n${NEXT}`);
    await client.ended;
    const [first, second] = heads(client.text());
    expect(first).toMatch(/^http\/1\.1 200 /);
    expect(first).not.toContain('connection: close');
    expect(second).toMatch(/^http\/1\.1 200 /);
  });

  it('a chunked rest beyond 256 KiB ends the connection after the answer', async () => {
    const client = rawClient(await gatewayPort());
    const chunk = `10000\r\n${'z'.repeat(0x10000)}\r\n`;
    client.socket.write(`POST /answer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.repeat(5)}`);
    await client.ended;
    expectOneAnswerThenClose(client.text());
  });

  it('a chunked rest that stops coming is waited for a second, then the answer ends the connection', async () => {
    const client = rawClient(await gatewayPort());
    const started = Date.now();
    client.socket.write('POST /answer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
    await client.ended;
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expectOneAnswerThenClose(client.text());
  });
});
