import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway, type SeenRequest } from './testing/endpoint-gateway.js';

const HCL = (origin: string): string => `
server {
  hosts = ["*:0"]
  endpoint "/stream" {
    request_body_limit = "1KiB"
    proxy { backend = "b" }
  }
  endpoint "/read" {
    request_body_limit = "1KiB"
    proxy {
      backend = "b"
      set_request_headers = { x-name = request.json_body.name }
    }
  }
  endpoint "/form" {
    request_body_limit = "1KiB"
    proxy {
      backend = "b"
      set_request_headers = { x-name = request.form_body.name[0], x-body = request.body }
    }
  }
  endpoint "/default-limit" {
    proxy {
      backend = "b"
      set_request_headers = { x-k = request.json_body.k }
    }
  }
}
definitions {
  backend "b" { origin = "${origin}" }
}
`;

/** Sends a chunked body (no Content-Length) so only reading it can tell its size. */
function sendChunked(url: string, chunks: string[], contentType = 'application/json'): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': contentType } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('client body buffering', () => {
  it('a body nobody reads streams to the backend even beyond request_body_limit', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(HCL(backend.origin));
    const big = 'x'.repeat(64 * 1024);
    const res = await sendChunked(gw.url('/stream'), [big.slice(0, 32 * 1024), big.slice(32 * 1024)]);
    expect(res.status).toBe(200);
    expect((JSON.parse(res.text) as SeenRequest).body).toBe(big);
  });

  it('a body an expression reads is buffered and bounded: within the limit it is read, beyond it 413', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(HCL(backend.origin));
    const small = await send(gw.url('/'), '/read', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"ann"}' });
    const seen = JSON.parse(small.text) as SeenRequest;
    expect(seen.headers['x-name']).toBe('ann');
    expect(seen.body).toBe('{"name":"ann"}');
    const declared = await send(gw.url('/'), '/read', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"name":"${'y'.repeat(2000)}"}` });
    expect(declared.status).toBe(413);
    const chunked = await sendChunked(gw.url('/read'), ['{"name":"', 'z'.repeat(2000), '"}']);
    expect(chunked.status).toBe(413);
    expect(backend.seen).toHaveLength(1);
  });

  it('request.form_body and request.body read the same bounded buffer: within the limit read, beyond it 413', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(HCL(backend.origin));
    const form = 'application/x-www-form-urlencoded';
    const small = await sendChunked(gw.url('/form'), ['name=ann%20lee', '&x=1'], form);
    const seen = JSON.parse(small.text) as SeenRequest;
    expect([seen.headers['x-name'], seen.headers['x-body'], seen.body]).toEqual(['ann lee', 'name=ann%20lee&x=1', 'name=ann%20lee&x=1']);
    const big = await sendChunked(gw.url('/form'), ['name=', 'a'.repeat(600), 'b'.repeat(600)], form);
    expect(big.status).toBe(413);
    expect(backend.seen).toHaveLength(1);
  });

  it('an answer given before a body of 256 KiB or more was read ends the connection, which no longer waits for the rest', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(HCL(backend.origin));
    const { port } = new URL(gw.url('/'));
    // A client that sends 4 KiB of a declared 3 MiB and then waits: it gets the 413 and the server's close.
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (c: Buffer) => received.push(c));
    const ended = new Promise<void>((resolve) => socket.once('end', resolve));
    socket.write(`POST /read HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${3 * 1024 * 1024}\r\n\r\n{"name":"${'w'.repeat(4096)}`);
    await ended;
    socket.destroy();
    const head = Buffer.concat(received).toString('latin1').split('\r\n\r\n')[0]!;
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head.toLowerCase()).toContain('connection: close');
    // A request whose body was read keeps its connection.
    const small = await fetch(gw.url('/read'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"ann"}' });
    expect([small.status, small.headers.get('connection'), await small.text()]).toEqual([200, 'keep-alive', expect.stringContaining('"x-name":"ann"')]);
  });

  it('without request_body_limit a body an expression reads is bounded at 64 MiB', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(HCL(backend.origin));
    const mib = 'x'.repeat(1024 * 1024);
    // {"k":"v","p":"xxx…"}: 64 MiB exactly, then one byte more.
    const head = '{"k":"v","p":"';
    const body = (extra: number) => [head, mib.slice(head.length), ...Array.from({ length: 62 }, () => mib), mib.slice(2 - extra), '"}'];
    const within = await sendChunked(gw.url('/default-limit'), body(0));
    expect(within.status).toBe(200);
    const seen = JSON.parse(within.text) as SeenRequest;
    expect([seen.headers['x-k'], seen.body.length]).toEqual(['v', 64 * 1024 * 1024]);
    const beyond = await sendChunked(gw.url('/default-limit'), body(1));
    expect(beyond.status).toBe(413);
    expect(backend.seen).toHaveLength(1);
  });
});
