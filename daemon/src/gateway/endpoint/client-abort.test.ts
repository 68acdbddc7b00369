import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';

describe('client abort', () => {
  it('cancels the backend request when the client goes away', async () => {
    let closed = false;
    let arrived = false;
    const backend = await startBackend((_req, res) => {
      arrived = true;
      res.on('close', () => (closed = true));
      // Never answers: only the gateway giving up can end this exchange.
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/slow" {
    proxy { url = "${backend.origin}/slow" }
  }
}
`);
    const client = request(gw.url('/slow'));
    client.on('error', () => undefined);
    client.end();
    await expect.poll(() => arrived).toBe(true);
    client.destroy();
    await expect.poll(() => closed).toBe(true);
  });

  it('cancels a streaming backend body when the client leaves mid-answer, gzipped or not', async () => {
    for (const encoding of ['gzip', 'identity']) {
      let closed = false;
      const backend = await startBackend((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        // 4 KiB now, then nothing: the answer stays open until someone gives up.
        res.write('x'.repeat(4096));
        res.on('close', () => (closed = true));
      });
      const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/stream" {
    proxy { url = "${backend.origin}/stream" }
  }
}
`);
      const client = request(gw.url('/stream'), { headers: { 'accept-encoding': encoding } });
      client.on('error', () => undefined);
      const response = await new Promise<import('node:http').IncomingMessage>((resolve) => client.on('response', resolve).end());
      expect(response.headers['content-encoding'] ?? 'identity').toBe(encoding);
      response.destroy();
      client.destroy();
      await expect.poll(() => closed, { timeout: 3000 }).toBe(true);
    }
  });
});
