import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import { adminBehindCatchAll } from '../access/testing/endpoint-hcl.js';
import { send } from './testing/test-gateway.js';

let backend: Server | null = null;
afterEach(async () => {
  await new Promise((resolve) => backend?.close(resolve) ?? resolve(null));
  backend = null;
});

/** A backend that answers as soon as a request's headers arrive, without reading its body. */
async function answeringBackend(): Promise<string> {
  backend = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('early'));
  await new Promise<void>((resolve) => backend?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
}

/** POSTs 64-KiB chunks until the response's status arrives (at most 64 MiB), then ends the body; the status and body. */
function uploadUntilAnswered(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/octet-stream' } }, (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (error) => (answered ? undefined : reject(error)));
    const chunk = Buffer.alloc(64 * 1024, 1);
    let sent = 0;
    const more = (): void => {
      while (!answered && sent < 64 * 1024 * 1024) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', more);
      }
      req.end();
    };
    more();
  });
}

describe('a backend that answers before it read the upload', () => {
  // Until 2026-12-03 this took the daemon down: stream.pipeline, destroying the request whose
  // body the backend stopped reading, set its `socket` to null, and the request's settling read it.
  it('gets its answer to the client, and the gateway goes on serving', async () => {
    const origin = await answeringBackend();
    const gw = await startAccessGateway({ 'portico.hcl': adminBehindCatchAll(origin) });
    const auth = `Basic ${Buffer.from(':pw').toString('base64')}`;
    for (const [path, headers] of [['/admin', { authorization: auth }], ['/upload', {}]] as const) {
      const answer = await uploadUntilAnswered(gw.url(path), headers);
      expect([path, answer]).toEqual([path, { status: 200, body: 'early' }]);
    }
    expect((await send(gw.url('/'), '/after')).status).toBe(200);
    expect(accessLines(gw).map((l) => [l['method'], l['status']])).toEqual([
      ['POST', 200],
      ['POST', 200],
      ['GET', 200],
    ]);
  });
});
