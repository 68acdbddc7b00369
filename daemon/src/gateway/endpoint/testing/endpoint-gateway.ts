/**
 * Test support for endpoint execution: real backends (node:http on loopback), the real HTTP
 * front (GatewayServer) with the real EndpointHandler, configurations from temporary HCL
 * files, and the real BackendSet (undici) with a health monitor whose snapshot the test sets.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEachTest } from '../../../testing/after-each-test.js';
import type { GatewayConfig } from '../../config/model.js';
import { loadOk } from '../../config/testing/config-files.js';
import { createBackendSet } from '../../backend/index.js';
import type { BackendHealth, GatewayLogRecord, HealthMonitor } from '../../contracts.js';
import { GatewayServer } from '../../http/gateway-server.js';
import { createEndpointHandler } from '../endpoint-handler.js';

const cleanups: (() => Promise<void>)[] = [];
afterEachTest(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface TestBackend {
  readonly origin: string;
  readonly seen: SeenRequest[];
}

/** A backend on a free loopback port; `respond` answers after the request body was read. */
export async function startBackend(respond: (req: SeenRequest, res: ServerResponse) => void | Promise<void> = echo): Promise<TestBackend> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      void Promise.resolve(respond(request, res)).catch((error: unknown) => res.destroy(error as Error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** Answers JSON with what the backend received. */
export function echo(req: SeenRequest, res: ServerResponse): void {
  const body = JSON.stringify(req);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** A health monitor whose snapshot the test sets (the real one runs checks on a schedule; these tests need a given state). */
export function fixedHealth(states: Record<string, BackendHealth> = {}): HealthMonitor {
  return {
    track: () => undefined,
    stop: async () => undefined,
    snapshot: () => states,
    onCheck: () => () => undefined,
    onChange: () => () => undefined,
    timeline: () => [],
  };
}

export interface EndpointGateway {
  readonly config: GatewayConfig;
  readonly records: GatewayLogRecord[];
  readonly warnings: string[];
  url(path: string): string;
}

/** Loads `hcl` (one file) and serves it on a free loopback port through the real HTTP front. */
/** `listenHost` `::` listens on every address, IPv4 clients coming in as IPv4-mapped IPv6 (as the daemon's `*` hosts do). */
export async function startEndpointGateway(hcl: string, options: { env?: Record<string, string>; health?: HealthMonitor; listenHost?: string } = {}): Promise<EndpointGateway> {
  const config = await loadOk({ 'portico.hcl': hcl }, options.env ?? {});
  const records: GatewayLogRecord[] = [];
  const warnings: string[] = [];
  const sink = { write: (r: GatewayLogRecord) => records.push(r) };
  const server = new GatewayServer({
    endpointHandler: createEndpointHandler({ logger: { warn: (m) => warnings.push(m) } }),
    createBackends: (cfg) => createBackendSet(cfg, { health: options.health ?? fixedHealth(), logSink: sink, env: {} }),
    logSink: sink,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    shutdownDelayMs: 0,
    shutdownTimeoutMs: 1000,
    listenHost: options.listenHost ?? '127.0.0.1',
  });
  cleanups.push(() => server.stop());
  await server.apply(config);
  const port = config.servers[0]?.hosts[0]?.port ?? 0;
  return {
    config,
    records,
    warnings,
    url: (path) => `http://127.0.0.1:${server.boundPort(port) ?? 0}${path}`,
  };
}

/** The access record of the request with this id. */
export function accessRecord(gw: EndpointGateway, id: string): GatewayLogRecord | undefined {
  return gw.records.find((r) => r.type === 'gateway_access' && r['uid'] === id);
}
