import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, waitUntil, type DaemonHandle } from './harness.js';

// The reference's shutdown: health 500 at once, requests still served during the delay, then the
// listeners close and in-flight requests get the shutdown timeout to finish.
const dir = mkdtempSync(join(tmpdir(), 'portico-gateway-shutdown-'));
let daemon: DaemonHandle | null = null;
let backend: Server | null = null;

afterEach(async () => {
  await daemon?.dispose();
  daemon = null;
  backend?.closeAllConnections();
  await new Promise((r) => backend?.close(r) ?? r(null));
  rmSync(dir, { recursive: true, force: true });
});

/** A backend whose /slow answers only when released. */
async function slowBackend(): Promise<{ port: number; waiting: ServerResponse[] }> {
  const waiting: ServerResponse[] = [];
  backend = createServer((req, res) => {
    if (req.url === '/slow') waiting.push(res);
    else res.end('fast');
  });
  await new Promise<void>((r) => backend!.listen(0, '127.0.0.1', r));
  return { port: (backend.address() as AddressInfo).port, waiting };
}

function writeConfig(backendPort: number): string {
  const file = join(dir, 'gateway.hcl');
  writeFileSync(
    file,
    `server {
  hosts = ["*:\${env.PORTICO_GATEWAY_PORT}"]
  endpoint "/**" {
    proxy {
      backend = "origin"
    }
  }
}
definitions {
  backend "origin" {
    origin = "http://127.0.0.1:${backendPort}"
  }
}
defaults {
  environment_variables = { PORTICO_GATEWAY_PORT = "8080" }
}
`,
  );
  return file;
}

describe('gateway shutdown', () => {
  it('turns health 500 at once, serves during the delay, then lets an in-flight request finish', async () => {
    const { port, waiting } = await slowBackend();
    daemon = await startDaemon({ args: ['--mode', 'gateway', '-f', writeConfig(port)], env: { PORTICO_SHUTDOWN_DELAY: '1500ms', PORTICO_SHUTDOWN_TIMEOUT: '20s' } });
    const url = daemon.gatewayUrl;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    const inFlight = fetch(`${url}/slow`).then(async (r) => ({ status: r.status, text: await r.text() }));
    await waitUntil(() => waiting.length === 1, 5000, () => 'the slow request never reached the backend');

    const exited = daemon.stop('SIGTERM', 30_000);
    await waitUntil(async () => (await fetch(`${url}/healthz`)).status === 500, 2000, () => 'health did not turn 500');
    const health = await fetch(`${url}/healthz`);
    expect(await health.text()).toBe('unhealthy');
    // Still serving during the delay.
    expect(await (await fetch(`${url}/fast`)).text()).toBe('fast');

    // After the delay the listener closes; the in-flight request is still open.
    await waitUntil(async () => fetch(`${url}/fast`).then(() => false, () => true), 10_000, () => 'the listener did not close after the delay');
    waiting[0]!.end('finally');
    expect(await inFlight).toEqual({ status: 200, text: 'finally' });
    expect(await exited).toBe(0);
  });
});
