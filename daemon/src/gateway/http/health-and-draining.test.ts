import { describe, expect, it } from 'vitest';
import { freePort, send, startGateway } from './testing/test-gateway.js';

describe('health path and draining', () => {
  it('answers 200 healthy on every port and host, before routing and outside base paths', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const gw = await startGateway({
      'portico.hcl': `
server {
  hosts = ["only.example.com:${a}", "*:${b}"]
  base_path = "/app"
  endpoint "/**" {
    response { body = "catch-all" }
  }
}
`,
    });
    for (const base of [gw.url('/', a), gw.url('/', b)]) {
      const res = await send(base, '/healthz', { headers: { host: 'unknown.example.com' } });
      expect(res.status).toBe(200);
      expect(res.text).toBe('healthy');
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('uses settings.health_path', async () => {
    const gw = await startGateway({ 'portico.hcl': 'server {\n  hosts = ["*:0"]\n}\nsettings {\n  health_path = "/-/ready"\n}\n' });
    expect((await send(gw.url(), '/-/ready')).text).toBe('healthy');
    expect((await send(gw.url(), '/healthz')).status).toBe(404);
  });

  it('turns 500 unhealthy as soon as stop() begins, still serves requests during the shutdown delay, then closes', async () => {
    const gw = await startGateway(
      { 'portico.hcl': 'server {\n  hosts = ["*:0"]\n  endpoint "/work" {\n    response { body = "done" }\n  }\n}\n' },
      { shutdownDelayMs: 3000 },
    );
    const base = gw.url();
    const stopping = gw.server.stop();
    expect(gw.server.draining).toBe(true);
    const health = await send(base, '/healthz');
    expect(health.status).toBe(500);
    expect(health.text).toBe('unhealthy');
    const work = await send(base, '/work');
    expect(work.status).toBe(200);
    expect(work.text).toBe('done');
    await stopping;
    await expect(send(base, '/healthz')).rejects.toThrow(/ECONNREFUSED/);
  });
});
