import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Component } from './component.js';
import { describeListenError } from './errors.js';
import type { Logger } from './logger.js';
import { formatAddress, type ListenAddress } from './settings.js';

/** Answers 200 while the listener runs; not a public path, the gateway does not front it. */
export const SERVICES_HEALTH_PATH = '/internal/healthz';

/** Handles one request of a mounted service; `url` is parsed against the Host header. */
export type ServiceHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

interface Mount {
  name: string;
  matches: (pathname: string) => boolean;
  handler: ServiceHandler;
}

/**
 * The internal services listener (PORTICO_SERVICES_ADDR, loopback by default): infosessions,
 * the ingest API and the discovery HTTP form mount their public paths here, unchanged, and the
 * gateway fronts them. Listens only when something is mounted.
 */
export class ServicesListener implements Component {
  readonly name = 'services';
  readonly #mounts: Mount[] = [];
  #server: Server | null = null;
  #url: string | null = null;

  constructor(
    private readonly address: ListenAddress,
    private readonly logger: Logger,
  ) {}

  /** Routes paths for which `matches` is true to `handler`; the first mount that matches wins. */
  mount(name: string, matches: (pathname: string) => boolean, handler: ServiceHandler): void {
    if (this.#server) throw new Error(`cannot mount ${name}: the services listener is already running`);
    this.#mounts.push({ name, matches, handler });
  }

  get hasMounts(): boolean {
    return this.#mounts.length > 0;
  }

  get url(): string | null {
    return this.#url;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => this.#dispatch(req, res));
    server.keepAliveTimeout = 65_000;
    const addr = formatAddress(this.address);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(new Error(describeListenError(error, 'services listener', addr, 'PORTICO_SERVICES_ADDR'), { cause: error })));
      server.listen(this.address.port, this.address.host, () => resolve());
    });
    this.#server = server;
    const { port } = server.address() as AddressInfo;
    this.#url = `http://${formatAddress({ host: this.address.host, port })}`;
    this.logger.info('internal services listening', { url: this.#url, services: this.#mounts.map((m) => m.name) });
  }

  describe(): string | null {
    return this.#url ? `${this.#url} (${this.#mounts.map((m) => m.name).join(', ')})` : null;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = null;
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #dispatch(req: IncomingMessage, res: ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    } catch {
      sendJsonError(res, 400, 'bad_request', 'the request target is not a valid URL');
      return;
    }
    if (url.pathname === SERVICES_HEALTH_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
      // For the gateway's beta_health check of this listener (config/portico.hcl).
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store', 'Content-Length': 8 }).end(req.method === 'HEAD' ? undefined : 'healthy\n');
      return;
    }
    const mount = this.#mounts.find((m) => m.matches(url.pathname));
    if (!mount) {
      sendJsonError(res, 404, 'not_found', `no service at ${url.pathname}`);
      return;
    }
    mount.handler(req, res, url).catch((error: unknown) => {
      this.logger.error('service request failed', { service: mount.name, path: url.pathname, error });
      if (!res.headersSent) sendJsonError(res, 500, 'internal', 'internal error; the daemon log has the details');
      else res.destroy();
    });
  }
}

/** `{"error":{"code","message"}}` with the status; the common shape of internal service errors. */
export function sendJsonError(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
}
