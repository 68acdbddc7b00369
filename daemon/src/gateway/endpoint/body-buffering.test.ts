import { request } from 'node:http';
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
}
definitions {
  backend "b" { origin = "${origin}" }
}
`;

/** Sends a chunked body (no Content-Length) so only reading it can tell its size. */
function sendChunked(url: string, chunks: string[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
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
});
