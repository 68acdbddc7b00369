import { describe, expect, it } from 'vitest';
import { freePort, send, startGateway } from './testing/test-gateway.js';

describe('virtual hosts on several ports', () => {
  it('selects the server by Host (case-insensitive, port ignored), falls back to the * server of the port, and 404s without one', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const gw = await startGateway({
      'portico.hcl': `
server "named" {
  hosts = ["api.example.com:${a}", "*:${b}"]
  endpoint "/who" {
    response { body = "named" }
  }
}
server "fallback" {
  hosts = ["*:${a}"]
  endpoint "/who" {
    response { body = "fallback" }
  }
}
server "other" {
  hosts = ["only.example.com:${b}"]
  endpoint "/who" {
    response { body = "other" }
  }
}
`,
    });
    const onA = gw.url('/', a);
    const onB = gw.url('/', b);
    expect((await send(onA, '/who', { headers: { host: 'API.Example.COM' } })).text).toBe('named');
    expect((await send(onA, '/who', { headers: { host: `api.example.com:${a}` } })).text).toBe('named');
    expect((await send(onA, '/who', { headers: { host: 'unknown.example.com' } })).text).toBe('fallback');
    expect((await send(onB, '/who', { headers: { host: 'only.example.com' } })).text).toBe('other');
    expect((await send(onB, '/who', { headers: { host: 'api.example.com' } })).text).toBe('named');
    expect(gw.server.addresses()).toEqual([`127.0.0.1:${Math.min(a, b)}`, `127.0.0.1:${Math.max(a, b)}`]);
  });

  it('answers 404 route_not_found on a port whose servers all have names the Host does not match', async () => {
    const port = await freePort();
    const gw = await startGateway({
      'portico.hcl': `server {\n  hosts = ["a.example.com:${port}"]\n  endpoint "/x" {\n    response { body = "a" }\n  }\n}\n`,
    });
    const res = await send(gw.url(), '/x', { headers: { host: 'b.example.com' } });
    expect(res.status).toBe(404);
    expect(res.headers['gateway-error']).toBe('route not found error');
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect((await send(gw.url(), '/x', { headers: { host: 'a.example.com' } })).text).toBe('a');
  });
});
