/**
 * The metrics exporter: `GET /metrics` on `beta_metrics_port` while `beta_metrics` is true.
 * A configuration is applied in two phases so that a reload stays all-or-nothing: `prepare`
 * binds a new port (throwing before anything changed when it cannot), `commit` switches to it
 * and closes the old one, `abort` releases what prepare bound.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../config/model.js';
import type { ReloadTarget } from '../contracts.js';
import { EXPOSITION_CONTENT_TYPE, mergeFamilies, renderExposition, type FamilySnapshot } from './exposition.js';
import type { GatewayMetrics } from './gateway-metrics.js';

export const METRICS_PATH = '/metrics';

export interface MetricsExporterLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface MetricsExporterOptions {
  readonly metrics: GatewayMetrics;
  /** Interface to bind; all interfaces when unset (tests pass `127.0.0.1`). */
  readonly host?: string;
  readonly logger?: MetricsExporterLogger;
  /** What other processes counted (the gateway's serving processes), added into each scrape. */
  readonly gather?: () => Promise<readonly (readonly FamilySnapshot[])[]>;
}

/** A configuration prepared by `MetricsExporter.prepare`: exactly one of commit or abort follows. */
export interface PreparedMetrics {
  /** Serves the prepared configuration: switches to the new port (closing the old one) or closes when turned off. */
  commit(): void;
  /** Releases a port prepare bound; what served before keeps serving. */
  abort(): Promise<void>;
}

interface Listener {
  /** The configured port (0 binds a free one). */
  readonly port: number;
  readonly server: Server;
}

const quiet: MetricsExporterLogger = { info: () => undefined, error: () => undefined };

export class MetricsExporter implements ReloadTarget {
  readonly #metrics: GatewayMetrics;
  readonly #host: string | undefined;
  readonly #logger: MetricsExporterLogger;
  readonly #gather: MetricsExporterOptions['gather'];
  #current: Listener | null = null;
  readonly #closing = new Set<Promise<void>>();
  #stopped = false;

  constructor({ metrics, host, logger = quiet, gather }: MetricsExporterOptions) {
    this.#metrics = metrics;
    this.#gather = gather;
    this.#host = host;
    this.#logger = logger;
  }

  /** The port the exporter listens on now, or null when it is off. */
  boundPort(): number | null {
    const address = this.#current?.server.address() as AddressInfo | null | undefined;
    return address ? address.port : null;
  }

  /** `host:port` of the listener (IPv6 in brackets), or null when off. */
  address(): string | null {
    const address = this.#current?.server.address() as AddressInfo | null | undefined;
    if (!address) return null;
    return `${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  }

  /** Binds what `config` needs that is not bound yet; throws (nothing changed) when it cannot. */
  async prepare(config: GatewayConfig): Promise<PreparedMetrics> {
    if (this.#stopped) throw new Error('metrics exporter: cannot apply a configuration after stop');
    const { betaMetrics, betaMetricsPort, betaServiceName } = config.settings;
    const wanted = betaMetrics ? betaMetricsPort : null;
    const keep = wanted !== null && this.#current !== null && this.#current.port === wanted;
    const opened = wanted !== null && !keep ? await this.#listen(wanted) : null;
    let settled = false;
    return {
      commit: () => {
        if (settled) return;
        settled = true;
        if (this.#stopped) {
          if (opened) void this.#close(opened);
          return;
        }
        this.#metrics.setServiceName(betaServiceName);
        if (keep) return;
        const previous = this.#current;
        this.#current = opened;
        if (previous) this.#close(previous);
        if (opened) this.#logger.info('metrics exporter listening', { address: this.address(), path: METRICS_PATH });
        else if (previous) this.#logger.info('metrics exporter off (beta_metrics = false)');
      },
      abort: async () => {
        if (settled) return;
        settled = true;
        if (opened) await this.#close(opened);
      },
    };
  }

  /** prepare + commit, for callers with nothing else to keep in step. */
  async apply(config: GatewayConfig): Promise<void> {
    (await this.prepare(config)).commit();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const current = this.#current;
    this.#current = null;
    if (current) this.#close(current);
    await Promise.all(this.#closing);
  }

  #listen(port: number): Promise<Listener> {
    const server = createServer((req, res) => void this.#serve(req, res));
    const host = this.#host;
    return new Promise<Listener>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        const where = `${host ?? '*'}:${port}`;
        const hint =
          error.code === 'EADDRINUSE'
            ? 'another process (or a server block of this gateway) already listens there; free the port or change beta_metrics_port in the settings block'
            : error.code === 'EACCES'
              ? 'the daemon may not bind this port; set beta_metrics_port above 1023 or grant the capability'
              : 'check beta_metrics_port in the settings block';
        reject(new Error(`metrics exporter: cannot listen on ${where}: ${error.code ?? error.message}; ${hint}.`, { cause: error }));
      };
      server.once('error', onError);
      server.listen({ port, host }, () => {
        server.off('error', onError);
        server.on('error', (error) => this.#logger.error(`metrics exporter listener on port ${port} failed`, { error: error.message }));
        resolve({ port, server });
      });
    });
  }

  #close(listener: Listener): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      if (!listener.server.listening) return resolve();
      listener.server.close(() => resolve());
      // Scrapes are short; a scraper's idle keep-alive connection must not hold the old port open.
      listener.server.closeIdleConnections();
    });
    this.#closing.add(closed);
    void closed.then(() => this.#closing.delete(closed));
    return closed;
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const path = url.split('?', 1)[0];
    if (path !== METRICS_PATH) return plain(res, 404, `not found: the metrics are at ${METRICS_PATH}\n`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, `method ${req.method ?? ''} not allowed: use GET\n`, { allow: 'GET, HEAD' });
    let body: Buffer;
    try {
      body = Buffer.from(this.#gather ? renderExposition(mergeFamilies(this.#metrics.families(), await this.#gather())) : this.#metrics.render(), 'utf8');
    } catch (error) {
      this.#logger.error('metrics exporter: rendering the metrics failed', { error: error instanceof Error ? error.message : String(error) });
      return plain(res, 500, 'metrics could not be rendered; see the daemon log\n');
    }
    res.writeHead(200, { 'content-type': EXPOSITION_CONTENT_TYPE, 'content-length': body.length, 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}
