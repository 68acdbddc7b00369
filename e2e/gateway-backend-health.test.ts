import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { controlQuery, startDaemon, waitUntil, type DaemonHandle } from './harness.js';

// A real backend going down and coming back: health checks, backend_unhealthy, use_when_unhealthy,
// the control API's view and the event stream.
const dir = mkdtempSync(join(tmpdir(), 'portico-gateway-health-'));
let daemon: DaemonHandle | null = null;
let backend: Server | null = null;

afterAll(async () => {
  await daemon?.dispose();
  await stopBackend();
  rmSync(dir, { recursive: true, force: true });
});

/** While false, the health path answers 503 but every other path still serves. */
let reportHealthy = true;

async function startBackend(port: number): Promise<void> {
  backend = createServer((req, res) => {
    if (req.url !== '/health') res.end(`served ${req.url}`);
    else if (reportHealthy) res.end('ok');
    else res.writeHead(503).end('maintenance');
  });
  await new Promise<void>((r) => backend!.listen(port, '127.0.0.1', r));
}
async function stopBackend(): Promise<void> {
  const server = backend;
  backend = null;
  if (!server) return;
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

interface BackendView {
  name: string;
  health: { state: string; failures: number; error: string; checked: boolean };
}
async function backendState(name: string): Promise<BackendView['health'] | undefined> {
  const { body } = await controlQuery(daemon!, 'backends.list', daemon!.token);
  const list = (body as { result: { data: BackendView[] } }).result.data;
  return list.find((b) => b.name === name)?.health;
}

describe('backend health through the running daemon', () => {
  it('turns a stopped backend unhealthy, refuses requests to it unless use_when_unhealthy, and recovers', async () => {
    await startBackend(0);
    const port = (backend!.address() as AddressInfo).port;
    const config = join(dir, 'gateway.hcl');
    writeFileSync(
      config,
      `server {
  hosts = ["*:\${env.PORTICO_GATEWAY_PORT}"]
  endpoint "/guarded/**" {
    proxy {
      backend = "origin"
    }
  }
  endpoint "/anyway/**" {
    proxy {
      backend = "origin_anyway"
    }
  }
}
definitions {
  backend "origin" {
    origin = "http://127.0.0.1:${port}"
    beta_health {
      path              = "/health"
      interval          = "250ms"
      timeout           = "200ms"
      failure_threshold = 2
      expected_text     = "ok"
    }
  }
  backend "origin_anyway" {
    origin             = "http://127.0.0.1:${port}"
    use_when_unhealthy = true
    beta_health {
      path     = "/health"
      interval = "250ms"
    }
  }
}
defaults {
  environment_variables = { PORTICO_GATEWAY_PORT = "8080" }
}
`,
    );
    daemon = await startDaemon({ args: ['--mode', 'gateway', '-f', config] });
    const gateway = (path: string): Promise<Response> => fetch(`${daemon!.gatewayUrl}${path}`);
    await waitUntil(async () => (await backendState('origin'))?.state === 'healthy', 10_000, () => 'origin never became healthy');
    expect(await (await gateway('/guarded/a')).text()).toBe('served /guarded/a');

    // Unhealthy by status: requests are refused without reaching it, unless use_when_unhealthy.
    reportHealthy = false;
    await waitUntil(async () => (await backendState('origin'))?.state === 'unhealthy', 10_000, () => 'origin never became unhealthy');
    expect((await backendState('origin'))!.error).toMatch(/503/);
    const refused = await gateway('/guarded/b');
    expect(refused.status).toBe(502);
    expect(refused.headers.get('gateway-error')).toBe('backend error');
    await waitUntil(async () => (await backendState('origin_anyway'))?.state === 'unhealthy', 10_000, () => 'origin_anyway never became unhealthy');
    const anyway = await gateway('/anyway/b');
    expect(anyway.status).toBe(200);
    expect(await anyway.text()).toBe('served /anyway/b');
    reportHealthy = true;
    await waitUntil(async () => (await backendState('origin'))?.state === 'healthy', 10_000, () => 'origin never recovered from 503');

    // Unreachable: connection refused, counted per failed check.
    await stopBackend();
    await waitUntil(async () => (await backendState('origin'))?.state === 'unhealthy', 10_000, () => 'origin never became unhealthy when stopped');
    const health = await backendState('origin');
    expect(health).toMatchObject({ checked: true });
    expect(health!.failures).toBeGreaterThanOrEqual(2);
    expect(health!.error).toMatch(/ECONNREFUSED/);
    expect((await gateway('/guarded/c')).status).toBe(502);

    await startBackend(port);
    await waitUntil(async () => (await backendState('origin'))?.state === 'healthy', 10_000, () => 'origin never recovered');
    expect(await (await gateway('/guarded/d')).text()).toBe('served /guarded/d');

    const { body } = await controlQuery(daemon, 'backends.timeline', daemon.token);
    const timeline = (body as { result: { data: Array<{ backend: string; from: string; to: string }> } }).result.data.filter((c) => c.backend === 'origin');
    expect(timeline.map((c) => c.to)).toEqual(expect.arrayContaining(['healthy', 'unhealthy']));
    const running = daemon;
    await expect.poll(() => running.logs()).toMatch(/origin.*healthy → (degraded|unhealthy)|origin.*unhealthy/);
  });
});
