import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startBackend, startEndpointGateway } from './test-support.js';

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
});
