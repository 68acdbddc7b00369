// A temporary copy of config/portico.hcl (with its www/) plus probe.hcl: a backend with a fast
// health check on a loopback server the test controls, so it can be taken down.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, startDaemon, type DaemonHandle } from './harness.js';

export const PROBE_SECRET = 'e2e-s3cret-basic';

export interface GatewayConfigCopy {
  dir: string;
  main: string;
  probe: string;
  /** The daemon arguments: `-f main -f probe`. */
  args: string[];
  probeServer: Server;
  probePort: number;
  edit(change: (text: string) => string): void;
  dispose(): Promise<void>;
}

export async function gatewayConfigCopy(): Promise<GatewayConfigCopy> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-e2e-config-'));
  cpSync(join(REPO_ROOT, 'config', 'portico.hcl'), join(dir, 'portico.hcl'));
  cpSync(join(REPO_ROOT, 'config', 'www'), join(dir, 'www'), { recursive: true });
  const probeServer = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => probeServer.listen(0, '127.0.0.1', resolve));
  const probePort = (probeServer.address() as AddressInfo).port;
  const probe = join(dir, 'probe.hcl');
  writeFileSync(
    probe,
    `server "portico" {
  endpoint "/probe/**" {
    proxy {
      backend = "probe"
    }
  }
}

definitions {
  backend "probe" {
    origin     = "http://127.0.0.1:${probePort}"
    basic_auth = "ops:${PROBE_SECRET}"
    beta_health {
      path              = "/health"
      interval          = "300ms"
      timeout           = "300ms"
      failure_threshold = 2
    }
  }
}
`,
  );
  const main = join(dir, 'portico.hcl');
  return {
    dir,
    main,
    probe,
    args: ['-f', main, '-f', probe],
    probeServer,
    probePort,
    edit(change) {
      writeFileSync(main, change(readFileSync(main, 'utf8')));
    },
    async dispose() {
      probeServer.closeAllConnections();
      await new Promise((resolve) => probeServer.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Adds `endpoint "<path>"` answering `body` at the top of the portico server. */
export function withEndpoint(text: string, path: string, body: string): string {
  return changed(text, text.replace('server "portico" {\n', `server "portico" {\n  endpoint "${path}" {\n    response {\n      body = "${body}"\n    }\n  }\n\n`));
}

/** The edited text, or an error when the edit matched nothing (config/portico.hcl changed under the test). */
export function changed(before: string, after: string): string {
  if (after === before) throw new Error('the edit matched nothing in the configuration copy; update the e2e edit to the current config/portico.hcl');
  return after;
}

/** Stops the probe backend's server: its health checks start failing. */
export async function stopProbe(copy: GatewayConfigCopy): Promise<void> {
  copy.probeServer.closeAllConnections();
  await new Promise((resolve) => copy.probeServer.close(resolve));
}

/** A daemon serving a fresh configuration copy; both are disposed by `cleanups` (run them after each test). */
export async function daemonOnConfigCopy(cleanups: Array<() => unknown>): Promise<{ daemon: DaemonHandle; copy: GatewayConfigCopy }> {
  const copy = await gatewayConfigCopy();
  cleanups.push(() => copy.dispose());
  const daemon = await startDaemon({ args: copy.args });
  cleanups.push(() => daemon.dispose());
  return { daemon, copy };
}
