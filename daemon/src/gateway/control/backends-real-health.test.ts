// backends.list / changes fed by the gateway's real health monitor checking a real loopback server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { BackendUpdate } from '../../main/app-router.js';
import { Logger } from '../../core/logger.js';
import { createHealthMonitor } from '../health/index.js';
import { join, tempDir, writeFileSync } from '../reload/testing/config-files.js';
import { startApi } from './testing/control-api.js';

async function healthServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('backends with the real health monitor', () => {
  it('shows a backend healthy while its server answers and unhealthy live once it is gone', async () => {
    const { server, port } = await healthServer();
    const file = join(tempDir(), 'portico.hcl');
    writeFileSync(
      file,
      `server "main" {\n  endpoint "/x" {\n    proxy {\n      backend = "svc"\n    }\n  }\n}\ndefinitions {\n  backend "svc" {\n    origin = "http://127.0.0.1:${port}"\n    beta_health {\n      path              = "/health"\n      interval          = "100ms"\n      timeout           = "100ms"\n      failure_threshold = 1\n    }\n  }\n}\n`,
    );
    const monitor = createHealthMonitor({ logger: new Logger({ sink: { write: () => {} } }) });
    const { api, bus } = await startApi([file], monitor);
    await expect.poll(async () => (await api.backends.list.query())[0]?.health.state).toBe('healthy');
    const seen: BackendUpdate[] = [];
    const subscription = api.backends.changes.subscribe(undefined, { onData: (t) => seen.push(t.data) });
    await expect.poll(() => seen.length).toBeGreaterThan(0);

    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await expect.poll(() => seen.some((u) => u.change?.to === 'unhealthy')).toBe(true);
    subscription.unsubscribe();
    const svc = (await api.backends.list.query())[0]!;
    expect(svc.health).toMatchObject({ checked: true, failures: expect.any(Number) });
    expect(svc.health.error).not.toBe('');
    expect((await api.backends.timeline.query())[0]).toMatchObject({ backend: 'svc', to: 'unhealthy' });
    expect(bus.latest(500).some((e) => e.type === 'backend.health' && e.level === 'error' && e.message.startsWith('backend svc: '))).toBe(true);
  });
});
