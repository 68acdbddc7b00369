/**
 * Test support for websockets: a real `ws` backend on loopback that records the handshakes
 * and plain requests it got, the real gateway (endpoint handler, backends) in front of it,
 * and a `ws` client with awaitable messages and close.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type RequestListener } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEachTest } from '../../../testing/after-each-test.js';
import WebSocket, { WebSocketServer } from 'ws';
import { createBackendSet } from '../../backend/index.js';
import { load } from '../../config/testing/config-files.js';
import type { EndpointHandler, GatewayLogRecord } from '../../contracts.js';
import { createEndpointHandler } from '../../endpoint/endpoint-handler.js';
import { fixedHealth } from '../../endpoint/testing/endpoint-gateway.js';
import { GatewayServer } from '../../http/gateway-server.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEachTest(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

export interface WsBackend {
  /** `http://127.0.0.1:<port>` (`https://localhost:<port>` with TLS) */
  readonly origin: string;
  /** Websocket handshakes that reached the backend. */
  readonly upgrades: SeenRequest[];
  /** Plain HTTP requests. */
  readonly requests: SeenRequest[];
  /** How each backend-side connection closed, in order. */
  readonly closes: { code: number; reason: string }[];
}

/**
 * Paths: `/refuse` answers the handshake 403; `/greet` sends `hello` at once; `/close/<code>`
 * closes with that code and reason `bye`; anything else echoes (text as text, binary as binary).
 * Every 101 carries `X-Backend: ws`; plain requests get 200 JSON `{ method, url, upgrade }`.
 */
export async function startWsBackend({ tls }: { tls?: { cert: string; key: string } } = {}): Promise<WsBackend> {
  const upgrades: SeenRequest[] = [];
  const requests: SeenRequest[] = [];
  const closes: { code: number; reason: string }[] = [];
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered) => [...offered].at(-1) ?? false });
  wss.on('headers', (lines) => lines.push('X-Backend: ws'));
  const answer: RequestListener = (req, res) => {
    requests.push(seen(req));
    const body = JSON.stringify({ method: req.method, url: req.url, upgrade: req.headers.upgrade ?? null });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  };
  const server = tls ? createTlsServer({ cert: tls.cert, key: tls.key }, answer) : createServer(answer);
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    upgrades.push(seen(req));
    if (req.url === '/refuse') {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnope');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('close', (code, reason) => closes.push({ code, reason: reason.toString() }));
      const close = /^\/close\/(\d+)$/.exec(req.url ?? '');
      if (close) return ws.close(Number(close[1]), 'bye');
      if (req.url === '/greet') ws.send('hello');
      ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    for (const client of wss.clients) client.terminate();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const port = (server.address() as AddressInfo).port;
  return { origin: tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`, upgrades, requests, closes };
}

function seen(req: IncomingMessage): SeenRequest {
  return { method: req.method ?? '', url: req.url ?? '', headers: req.headers };
}

export interface WsGateway {
  readonly server: GatewayServer;
  readonly records: GatewayLogRecord[];
  /** `ws://127.0.0.1:<port><path>` */
  wsUrl(path: string): string;
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
}

/**
 * The real gateway on a free loopback port, serving `files` (the `.hcl` ones are the
 * configuration); `endpointHandler` replaces the real one (e.g. one wrapping it).
 */
export async function startWsGateway(files: Record<string, string>, { shutdownTimeoutMs = 1000, endpointHandler = createEndpointHandler() }: { shutdownTimeoutMs?: number; endpointHandler?: EndpointHandler } = {}): Promise<WsGateway> {
  const loaded = await load(files);
  if (!loaded.config) throw new Error(`expected a valid configuration, got:\n${loaded.messages.join('\n')}`);
  const records: GatewayLogRecord[] = [];
  const sink = { write: (r: GatewayLogRecord) => records.push(r) };
  const server = new GatewayServer({
    endpointHandler,
    createBackends: (cfg) => createBackendSet(cfg, { health: fixedHealth(), logSink: sink, env: {} }),
    logSink: sink,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    shutdownDelayMs: 0,
    shutdownTimeoutMs,
    listenHost: '127.0.0.1',
  });
  cleanups.push(() => server.stop());
  await server.apply(loaded.config);
  const port = server.boundPort(loaded.config.servers[0]?.hosts[0]?.port ?? 0) ?? 0;
  return { server, records, wsUrl: (path) => `ws://127.0.0.1:${port}${path}`, url: (path) => `http://127.0.0.1:${port}${path}` };
}

/** A gateway configuration with one server on a free port (`*:0`). */
export function serverOn(body: string, definitions = ''): string {
  return `server {\n  hosts = ["*:0"]\n${body}\n}\n${definitions === '' ? '' : `definitions {\n${definitions}\n}\n`}`;
}

export interface WsClient {
  readonly socket: WebSocket;
  /** Headers of the 101 answer. */
  readonly headers: IncomingHttpHeaders;
  /** The next message (text as string, binary as Buffer). */
  next(): Promise<string | Buffer>;
  /** Resolves with how the connection closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
}

/** Opens a websocket through the gateway; rejects with the HTTP answer when it is not upgraded. */
export function connect(url: string, options: { headers?: Record<string, string>; protocols?: string[] } = {}): Promise<WsClient> {
  const socket = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {} });
  cleanups.push(() => socket.terminate());
  const queue: (string | Buffer)[] = [];
  const waiting: ((m: string | Buffer) => void)[] = [];
  socket.on('message', (data: Buffer, isBinary) => {
    const message = isBinary ? data : data.toString();
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  return new Promise((resolve, reject) => {
    let headers: IncomingHttpHeaders = {};
    socket.once('upgrade', (res) => (headers = res.headers));
    socket.once('open', () =>
      resolve({
        socket,
        headers,
        closed,
        next: () => {
          const queued = queue.shift();
          return queued !== undefined ? Promise.resolve(queued) : new Promise((r) => waiting.push(r));
        },
      }),
    );
    socket.once('unexpected-response', (_req, res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => reject(new RefusedUpgrade(res.statusCode ?? 0, res.headers, Buffer.concat(chunks).toString())));
    });
    socket.once('error', reject);
  });
}

/** The HTTP answer to a handshake that was not upgraded. */
export class RefusedUpgrade extends Error {
  constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    readonly body: string,
  ) {
    super(`upgrade refused with ${status}`);
    this.name = 'RefusedUpgrade';
  }
}

export function accessRecords(gw: WsGateway): GatewayLogRecord[] {
  return gw.records.filter((r) => r.type === 'gateway_access');
}

export function backendRecords(gw: WsGateway): GatewayLogRecord[] {
  return gw.records.filter((r) => r.type === 'gateway_backend');
}
