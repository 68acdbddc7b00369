/**
 * The gateway's HTTP front: one listener per configured port, a runtime per applied
 * configuration swapped atomically, and the reference's shutdown (health turns 500, new
 * requests accepted for the shutdown delay, then listeners close and in-flight requests get
 * the shutdown timeout before their sockets are destroyed).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../config/model.js';
import type { AccessControlSet, BackendSet, EndpointHandler, GatewayLogSink, ReloadTarget, AccessDenial } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { createGatewayLogSink, isConfigurableLogSink, logSinkSettings } from '../logs/log-sink.js';
import { handleRequest, type PipelineDeps, type RequestSlot } from './request-pipeline.js';
import { buildRuntime, type Runtime } from './runtime.js';

export interface GatewayServerLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface GatewayServerOptions {
  readonly endpointHandler: EndpointHandler;
  /** Builds the backends of a configuration (aside, before the swap). */
  readonly createBackends: (config: GatewayConfig) => BackendSet;
  /** Where access lines go; by default a sink on stdout that follows each config's log settings. */
  readonly logSink?: GatewayLogSink;
  readonly logger: GatewayServerLogger;
  /** Health turns 500 at once; new requests are still accepted for this long. */
  readonly shutdownDelayMs: number;
  /** After the listeners close, in-flight requests get this long before their sockets are destroyed. */
  readonly shutdownTimeoutMs: number;
  /** Interface to bind every port on; all interfaces when unset (`*` hosts mean that). */
  readonly listenHost?: string;
  /** Told of every request an access control or permission check refused (for the consoles' Events). */
  readonly onAccessDenied?: (denial: AccessDenial) => void;
}

interface Listener {
  readonly port: number;
  readonly server: Server;
  closing: boolean;
  closed: Promise<void> | null;
}

interface RuntimeSlot {
  readonly runtime: Runtime;
  inflight: number;
  retired: boolean;
  released: boolean;
}

interface InFlight {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

export class GatewayServer implements ReloadTarget {
  readonly #options: GatewayServerOptions;
  readonly #logSink: GatewayLogSink;
  readonly #listeners = new Map<number, Listener>();
  readonly #inflight = new Set<InFlight>();
  readonly #backendCloses: Promise<void>[] = [];
  #current: RuntimeSlot | null = null;
  #draining = false;
  #queue: Promise<unknown> = Promise.resolve();
  #stopping: Promise<void> | null = null;

  /** What each request's pipeline reads of this server (one object, not one per request). */
  readonly #deps: PipelineDeps;

  constructor(options: GatewayServerOptions) {
    this.#options = options;
    this.#logSink = options.logSink ?? createGatewayLogSink();
    this.#deps = {
      endpointHandler: options.endpointHandler,
      logSink: this.#logSink,
      isDraining: () => this.#draining,
      isClosing: (port: number) => this.#listeners.get(port)?.closing ?? true,
      ...(options.onAccessDenied ? { onAccessDenied: options.onAccessDenied } : {}),
    };
  }

  /** True once stop() began (the health path answers 500). */
  get draining(): boolean {
    return this.#draining;
  }

  /** The configuration serving now, or null before the first apply. */
  get config(): GatewayConfig | null {
    return this.#current?.runtime.config ?? null;
  }

  /** The access controls serving now (login providers' state for the consoles), or null before the first apply. */
  get access(): AccessControlSet | null {
    return this.#current?.runtime.access ?? null;
  }

  /** The bound listeners as `host:port` (IPv6 in brackets), in port order. */
  addresses(): string[] {
    return [...this.#listeners.values()]
      .filter((l) => !l.closing)
      .sort((a, b) => a.port - b.port)
      .map((l) => {
        const address = l.server.address() as AddressInfo | null;
        if (!address) return `?:${l.port}`;
        return `${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
      });
  }

  /** The port a configured port is bound to (differs only for port 0). */
  boundPort(configuredPort: number): number | null {
    const address = this.#listeners.get(configuredPort)?.server.address() as AddressInfo | null | undefined;
    return address ? address.port : null;
  }

  /** Serves `config`: builds it aside, opens new ports, swaps; throws (old config still serving) when any step fails. */
  apply(config: GatewayConfig): Promise<void> {
    const run = this.#queue.then(() => this.#apply(config));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #apply(config: GatewayConfig): Promise<void> {
    if (this.#stopping) throw new Error('gateway: cannot apply a configuration while shutting down');
    const backends = this.#options.createBackends(config);
    let runtime: Runtime;
    try {
      runtime = buildRuntime(config, backends, (message) => this.#options.logger.warn(message));
    } catch (error) {
      await backends.close();
      throw new Error(`gateway: cannot build the routes of the configuration: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const opened: Listener[] = [];
    try {
      for (const port of runtime.ports.keys()) {
        if (this.#listeners.has(port) && !this.#listeners.get(port)!.closing) continue;
        opened.push(await this.#listen(port));
      }
    } catch (error) {
      await Promise.all(opened.map((l) => this.#closeListener(l)));
      runtime.access.close();
      await backends.close();
      throw error;
    }
    for (const listener of opened) this.#listeners.set(listener.port, listener);

    const previous = this.#current;
    this.#current = { runtime, inflight: 0, retired: false, released: false };
    if (isConfigurableLogSink(this.#logSink)) this.#logSink.configure(logSinkSettings(config.settings));
    for (const problem of runtime.problems) this.#options.logger.warn(problem);

    for (const [port, listener] of this.#listeners) {
      if (!runtime.ports.has(port)) void this.#closeListener(listener).then(() => this.#listeners.get(port) === listener && this.#listeners.delete(port));
    }
    if (previous) {
      previous.retired = true;
      this.#releaseIfIdle(previous);
    }
  }

  #listen(port: number): Promise<Listener> {
    const host = this.#options.listenHost;
    const server = createServer();
    const listener: Listener = { port, server, closing: false, closed: null };
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.#onRequest(listener, req, res));
    server.on('clientError', (_error, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      else socket.destroy();
    });
    return new Promise<Listener>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        const where = `${host ?? '*'}:${port}`;
        const hint = error.code === 'EADDRINUSE' ? 'another process (or server block) already listens there; free the port or change the hosts of the server' : error.code === 'EACCES' ? 'the daemon may not bind this port; use a port above 1023 or grant the capability' : 'check the hosts of the server blocks';
        reject(new Error(`gateway: cannot listen on ${where}: ${error.code ?? error.message}; ${hint}.`, { cause: error }));
      };
      server.once('error', onError);
      server.listen({ port, host }, () => {
        server.off('error', onError);
        server.on('error', (error) => this.#options.logger.error(`gateway listener on port ${port} failed`, { error: error.message }));
        this.#options.logger.info('gateway listening', { address: server.address() });
        resolve(listener);
      });
    });
  }

  /** Stops accepting on the listener; in-flight requests finish (answers carry Connection: close). */
  #closeListener(listener: Listener): Promise<void> {
    if (listener.closed) return listener.closed;
    listener.closing = true;
    listener.closed = new Promise<void>((resolve) => {
      if (!listener.server.listening) return resolve();
      listener.server.close(() => resolve());
      listener.server.closeIdleConnections();
    });
    return listener.closed;
  }

  #onRequest(listener: Listener, req: IncomingMessage, res: ServerResponse): void {
    const current = this.#current;
    if (!current) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('gateway not configured\n');
      return;
    }
    // The request finishes on the runtime it arrived on, whatever is applied meanwhile.
    current.inflight += 1;
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new GatewayError('client_request', 'client closed the connection'));
    });
    const slot: RequestSlot = { runtime: current.runtime, port: listener.port, controller };
    const entry: InFlight = {
      controller,
      done: handleRequest(this.#deps, slot, req, res)
        .catch((error: unknown) => {
          this.#options.logger.error('gateway request failed', { error: error instanceof Error ? error.message : String(error) });
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('internal error\n');
          else res.destroy();
        })
        .finally(() => {
          this.#inflight.delete(entry);
          current.inflight -= 1;
          this.#releaseIfIdle(current);
          if (listener.closing) listener.server.closeIdleConnections();
        }),
    };
    this.#inflight.add(entry);
  }

  /** Closes a replaced runtime's backends once its last request ended. */
  #releaseIfIdle(slot: RuntimeSlot): void {
    if (!slot.retired || slot.released || slot.inflight > 0) return;
    slot.released = true;
    slot.runtime.access.close();
    this.#backendCloses.push(
      slot.runtime.backends.close().catch((error: unknown) => this.#options.logger.warn('closing the backends of a replaced configuration failed', { error: error instanceof Error ? error.message : String(error) })),
    );
  }

  /** Graceful shutdown; idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#draining = true;
    await this.#queue;
    if (this.#options.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#options.shutdownDelayMs));
    const listeners = [...this.#listeners.values()];
    const closed = Promise.all(listeners.map((l) => this.#closeListener(l)));
    const drained = Promise.all([...this.#inflight].map((f) => f.done));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.#options.shutdownTimeoutMs)));
    const outcome = await Promise.race([drained.then(() => 'drained' as const), deadline]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      this.#options.logger.warn('gateway shutdown timeout: aborting in-flight requests', { inflight: this.#inflight.size });
      for (const f of this.#inflight) f.controller.abort(new GatewayError('server_shutdown', 'shutdown timeout reached'));
      for (const l of listeners) l.server.closeAllConnections();
    }
    await closed;
    this.#listeners.clear();
    const current = this.#current;
    if (current) {
      current.retired = true;
      // After the deadline nothing may keep the backends open, not even a request that ignores its abort.
      if (outcome === 'timeout') current.inflight = 0;
      this.#releaseIfIdle(current);
    }
    await Promise.all(this.#backendCloses);
  }
}
