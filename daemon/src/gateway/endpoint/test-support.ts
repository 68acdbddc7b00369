/**
 * Test support for endpoint execution: real backends (node:http on loopback), the real HTTP
 * front (GatewayServer) with the real EndpointHandler, configurations from temporary HCL
 * files. The BackendSet is a minimal undici forwarder — the seam until engineer B's
 * `createBackendSet` is committed; swap it in `backendSet` below.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request as undiciRequest } from 'undici';
import { afterEach } from 'vitest';
import type { GatewayConfig } from '../config/model.js';
import { loadOk } from '../config/test-helpers.js';
import type { BackendHealth, BackendSet, GatewayLogRecord, HealthMonitor } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { GatewayServer } from '../http/gateway-server.js';
import { createEndpointHandler } from './endpoint-handler.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
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

/** A health monitor whose snapshot the test sets (the daemon's real one is engineer B's). */
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

/** Forwards each BackendRequest with undici as it is (the seam for B's BackendSet). */
export function backendSet(config: GatewayConfig, health: HealthMonitor): BackendSet {
  return {
    health,
    get(name) {
      const backend = config.backends[name];
      if (!backend) throw new GatewayError('configuration', `no backend ${name}`);
      return {
        config: backend,
        async send(req) {
          try {
            const res = await undiciRequest(req.url, { method: req.method as 'GET', headers: req.headers as Record<string, string | string[]>, body: req.body, signal: req.signal });
            const headers: Record<string, string | string[]> = {};
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = k === 'set-cookie' ? [v].flat() : v;
            return { status: res.statusCode, headers, body: res.body };
          } catch (error) {
            throw new GatewayError('backend', `${req.url.origin}: ${error instanceof Error ? error.message : String(error)}`, { cause: error, source: name });
          }
        },
      };
    },
    close: async () => undefined,
  };
}

export interface EndpointGateway {
  readonly config: GatewayConfig;
  readonly records: GatewayLogRecord[];
  readonly warnings: string[];
  url(path: string): string;
}

/** Loads `hcl` (one file) and serves it on a free loopback port through the real HTTP front. */
export async function startEndpointGateway(hcl: string, options: { env?: Record<string, string>; health?: HealthMonitor } = {}): Promise<EndpointGateway> {
  const config = await loadOk({ 'portico.hcl': hcl }, options.env ?? {});
  const records: GatewayLogRecord[] = [];
  const warnings: string[] = [];
  const server = new GatewayServer({
    endpointHandler: createEndpointHandler({ logger: { warn: (m) => warnings.push(m) } }),
    createBackends: (cfg) => backendSet(cfg, options.health ?? fixedHealth()),
    logSink: { write: (r) => records.push(r) },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    shutdownDelayMs: 0,
    shutdownTimeoutMs: 1000,
    listenHost: '127.0.0.1',
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
