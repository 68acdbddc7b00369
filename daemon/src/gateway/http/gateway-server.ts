/**
 * The gateway's HTTP front: one listener per configured port, a runtime per applied
 * configuration swapped atomically, and the reference's shutdown (health turns 500, new
 * requests accepted for the shutdown delay, then listeners close and in-flight requests get
 * the shutdown timeout before their sockets are destroyed).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { GatewayConfig } from '../config/model.js';
import type { AccessControlSet, BackendSet, EndpointHandler, GatewayLogSink, ReloadTarget, AccessDenial } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { createGatewayLogSink, isConfigurableLogSink, logSinkSettings } from '../logs/log-sink.js';
import { answerClientError, type ClientError } from './client-errors.js';
import { DevCertificateStore, devCertificateNames, type DevCredentials } from './dev-tls.js';
import { DEFAULT_FRONT_LIMITS, nodeServerOptions, type FrontLimits } from './front-limits.js';
import { handleRequest, type PipelineDeps, type RequestSlot } from './request-pipeline.js';
import { localHost } from './client-address.js';
import { RequestLifetime } from './request-lifetime.js';
import { responseOnSocket } from './socket-response.js';
import { continueOnFirstRead } from './expect-continue.js';
import { buildRuntime, type Runtime } from './runtime.js';
import { createWebsocketUpgrades, type UpgradeHooks, type WebsocketUpgrades } from '../websockets/websocket-upgrades.js';

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
  /** Timeouts and size limits of client connections; DEFAULT_FRONT_LIMITS for what is not given. */
  readonly limits?: Partial<FrontLimits>;
  /** Where the https_dev_proxy certificate is kept (the data dir); in memory only when unset. */
  readonly devCertificateDir?: string;
  /** False in every serving process but the first: the configuration's warnings are the same in each (default true). */
  readonly logsConfigWarnings?: boolean;
}

interface Listener {
  /** The configured port whose servers answer; an https_dev_proxy listener's follows its entry across reloads. */
  port: number;
  /** The port bound: `port` for plain listeners, the TLS port for https_dev_proxy ones. */
  readonly listenPort: number;
  readonly tls: boolean;
  readonly server: Server | TlsServer;
  closing: boolean;
  closed: Promise<void> | null;
}

/**
 * The requests in flight on one client connection (usually one; more when the client
 * pipelines): the connection closing cancels those not answered yet, with one `close`
 * listener per connection rather than one per request.
 */
interface ConnectionRequests {
  readonly inflight: InFlight[];
  /** The connection's local `address:port`, for requests without a Host. */
  readonly fallbackHost: string;
  /** The client connection closed (its requests may still be finishing). */
  closed: boolean;
  /** The socket's bytes read when its last request was answered: what came after is a new request's. */
  bytesAtRest: number;
}

interface RuntimeSlot {
  readonly runtime: Runtime;
  inflight: number;
  retired: boolean;
  released: boolean;
}

/** A configuration built and its new ports open, not yet serving (GatewayServer.prepare). */
export interface PreparedConfig {
  /** Serves it from now on. */
  commit(): void;
  /** Closes what it opened; the configuration serving goes on. */
  abort(): Promise<void>;
}

interface InFlight {
  readonly lifetime: RequestLifetime;
  readonly res: ServerResponse;
  done: Promise<void> | null;
}

export class GatewayServer implements ReloadTarget {
  readonly #options: GatewayServerOptions;
  readonly #logSink: GatewayLogSink;
  readonly #listeners = new Map<number, Listener>();
  /** https_dev_proxy listeners by TLS port. */
  readonly #tlsListeners = new Map<number, Listener>();
  readonly #limits: FrontLimits;
  readonly #devCertificates: DevCertificateStore;
  readonly #connectionRequests = new WeakMap<Duplex, ConnectionRequests>();
  #connections = 0;
  #capWarnedAt = 0;
  /**
   * Connections that are open or still have requests in flight: shutdown waits for (and at
   * its deadline cancels) the requests of each. Kept per connection, not per request: a
   * long-lived Set that took and dropped an entry per request kept every request's objects
   * alive through young-generation collections (its old table still pointed at them), so they
   * were copied and promoted: about 3 MB per scavenge under load, scavenges of 13-20 ms.
   */
  readonly #open = new Set<ConnectionRequests>();
  readonly #backendCloses: Promise<void>[] = [];
  #current: RuntimeSlot | null = null;
  #draining = false;
  #queue: Promise<unknown> = Promise.resolve();
  #stopping: Promise<void> | null = null;
  /** Upgrade requests and the websocket connections they opened (those outlive their request). */
  readonly #websockets: WebsocketUpgrades;

  /** What each request's pipeline reads of this server (one object, not one per request). */
  readonly #deps: PipelineDeps;

  constructor(options: GatewayServerOptions) {
    this.#options = options;
    this.#logSink = options.logSink ?? createGatewayLogSink();
    this.#limits = { ...DEFAULT_FRONT_LIMITS, ...options.limits };
    this.#devCertificates = new DevCertificateStore(options.devCertificateDir ?? null, (message, fields) => options.logger.info(message, fields));
    this.#deps = {
      endpointHandler: options.endpointHandler,
      logSink: this.#logSink,
      isDraining: () => this.#draining,
      isClosing: (port: number) => this.#listeners.get(port)?.closing ?? true,
      limits: this.#limits,
      ...(options.onAccessDenied ? { onAccessDenied: options.onAccessDenied } : {}),
    };
    this.#websockets = createWebsocketUpgrades({ endpointHandler: options.endpointHandler, logSink: this.#logSink });
  }

  /** The limits and timeouts client connections get. */
  get limits(): FrontLimits {
    return this.#limits;
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
  async apply(config: GatewayConfig): Promise<void> {
    (await this.prepare(config)).commit();
  }

  /**
   * The first half of apply: builds `config` aside and opens its new ports, without serving it.
   * Nothing else is applied until the result is committed or aborted (several gateway
   * processes switch together: each prepares, then all commit, or all abort when one failed).
   * Throws, with nothing changed, when a step fails.
   */
  prepare(config: GatewayConfig): Promise<PreparedConfig> {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const run = this.#queue.then(() => this.#prepare(config, release));
    // The next apply waits for this one's commit or abort, or for its failure.
    this.#queue = run.then(() => held, () => undefined);
    return run;
  }

  async #prepare(config: GatewayConfig, release: () => void): Promise<PreparedConfig> {
    if (this.#stopping) throw new Error('gateway: cannot apply a configuration while shutting down');
    const backends = this.#options.createBackends(config);
    let runtime: Runtime;
    try {
      runtime = buildRuntime(
        config,
        backends,
        { warn: (message, uid) => this.#options.logger.warn(message, { uid }), logSink: this.#logSink },
        this.#options.endpointHandler,
      );
    } catch (error) {
      await backends.close();
      throw new Error(`gateway: cannot build the routes of the configuration: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const opened: Listener[] = [];
    let credentials: DevCredentials | null = null;
    const undo = async (): Promise<void> => {
      await Promise.all(opened.map((l) => this.#closeListener(l)));
      runtime.access.close();
      await backends.close();
    };
    try {
      for (const port of runtime.ports.keys()) {
        if (this.#listeners.has(port) && !this.#listeners.get(port)!.closing) continue;
        opened.push(await this.#listen(port, undefined, serversOn(config, port)));
      }
      if (config.settings.httpsDevProxy.length > 0) credentials = await this.#devCertificates.credentialsFor(devCertificateNames(config));
      for (const { tlsPort, plainPort } of config.settings.httpsDevProxy) {
        if (this.#tlsListeners.has(tlsPort) && !this.#tlsListeners.get(tlsPort)!.closing) continue;
        opened.push(await this.#listen(plainPort, { listenPort: tlsPort, credentials: credentials! }, `https_dev_proxy "${tlsPort}:${plainPort}" of the settings block`));
      }
    } catch (error) {
      await undo();
      throw error;
    }
    let settled = false;
    return {
      commit: () => {
        if (settled) return;
        settled = true;
        this.#swap(config, runtime, opened, credentials);
        release();
      },
      abort: async () => {
        if (settled) return;
        settled = true;
        try {
          await undo();
        } finally {
          release();
        }
      },
    };
  }

  #swap(config: GatewayConfig, runtime: Runtime, opened: readonly Listener[], credentials: DevCredentials | null): void {
    for (const listener of opened) (listener.tls ? this.#tlsListeners : this.#listeners).set(listener.listenPort, listener);

    const previous = this.#current;
    this.#current = { runtime, inflight: 0, retired: false, released: false };
    if (isConfigurableLogSink(this.#logSink)) this.#logSink.configure(logSinkSettings(config.settings));
    if (this.#options.logsConfigWarnings !== false) for (const problem of runtime.problems) this.#options.logger.warn(problem);

    for (const [port, listener] of this.#listeners) {
      if (!runtime.ports.has(port)) void this.#closeListener(listener).then(() => this.#listeners.get(port) === listener && this.#listeners.delete(port));
    }
    this.#retargetTlsListeners(config, credentials);
    if (previous) {
      previous.retired = true;
      this.#releaseIfIdle(previous);
    }
  }

  /**
   * A plain listener for `port`, or with `tls` an https_dev_proxy listener on its TLS port that
   * serves what `port` serves. `owner` names what in the configuration asked for it, for the
   * error when the port cannot be had.
   */
  #listen(port: number, tls: { readonly listenPort: number; readonly credentials: DevCredentials } | undefined, owner: string): Promise<Listener> {
    const host = this.#options.listenHost;
    const options = nodeServerOptions(this.#limits);
    // A client that never finishes its TLS handshake is held no longer than one that never finishes its headers.
    const server = tls ? createTlsServer({ ...options, ...tls.credentials, handshakeTimeout: this.#limits.headerTimeoutMs }) : createServer(options);
    const listenPort = tls?.listenPort ?? port;
    const listener: Listener = { port, listenPort, tls: tls !== undefined, server, closing: false, closed: null };
    server.on('connection', (socket: Socket) => this.#admit(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.#onRequest(listener, req, res));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const upgrade = this.#websockets.accept(req, socket, head);
      this.#onRequest(listener, req, upgrade.response, upgrade.hooks);
    });
    // CONNECT (a tunnel through a forward proxy, which the gateway is not): Node hands such a
    // request over with its socket and, with no listener, closes it unanswered and unlogged. It
    // goes through the pipeline like any other request instead, which refuses its host:port
    // target with 400 and an access line; then the connection closes.
    server.on('connect', (req: IncomingMessage, socket: Duplex) => this.#onRequest(listener, req, responseOnSocket(req, socket)));
    // `Expect: 100-continue`: Node would send the 100 at once; it waits for the body's first read (expect-continue.ts).
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      continueOnFirstRead(req, res);
      this.#onRequest(listener, req, res);
    });
    // Any other expectation: Node would answer 417 unlogged; the pipeline refuses it with its access line (front-limits.ts).
    server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => this.#onRequest(listener, req, res));
    server.on('clientError', (error: ClientError, socket: Duplex) => this.#onClientError(listener, error, socket));
    return new Promise<Listener>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        const where = `${host ?? '*'}:${listenPort}`;
        const hint = error.code === 'EADDRINUSE' ? `another process (or server block) already listens there; free the port or change ${owner}` : error.code === 'EACCES' ? `the daemon may not bind this port; use a port above 1023 in ${owner} or grant the capability` : `check ${owner}`;
        reject(new Error(`gateway: cannot listen on ${where}: ${error.code ?? error.message}; ${hint}.`, { cause: error }));
      };
      server.once('error', onError);
      server.listen({ port: listenPort, host }, () => {
        server.off('error', onError);
        server.on('error', (error) => this.#options.logger.error(`gateway listener on port ${listenPort} failed`, { error: error.message }));
        this.#options.logger.info('gateway listening', { address: server.address(), ...(tls ? { tls: true, serves_port: port } : {}) });
        resolve(listener);
      });
    });
  }

  /** Holds a new client connection, or closes it at once when the connection cap is reached (existing ones go on). */
  #admit(socket: Socket): void {
    if (this.#connections >= this.#limits.maxConnections) {
      socket.destroy();
      if (Date.now() - this.#capWarnedAt > 60_000) {
        this.#capWarnedAt = Date.now();
        this.#options.logger.warn('gateway connection limit reached: new connections are closed until some end (PORTICO_GATEWAY_MAX_CONNECTIONS)', { max_connections: this.#limits.maxConnections });
      }
      return;
    }
    this.#connections += 1;
    socket.once('close', () => (this.#connections -= 1));
  }

  /**
   * A parser error or timeout on a connection. A body that does not arrive in time or does not
   * parse fails the request in flight (the pipeline answers 408 or 400 and the connection
   * closes); anything else is answered on the socket (client-errors.ts), or the socket is closed
   * when a response began.
   */
  #onClientError(listener: Listener, error: ClientError, socket: Duplex): void {
    const inflight = this.#connectionRequests.get(socket)?.inflight.at(-1);
    if (inflight && !inflight.res.writableEnded) {
      const failure = this.#requestBodyFailure(error, inflight.res);
      if (failure) {
        inflight.lifetime.cancel(failure);
        // A handler that ignores its abort must not keep the connection.
        const timer = setTimeout(() => socket.destroy(), 1000).unref();
        inflight.res.once('close', () => clearTimeout(timer));
        return;
      }
      if (error.code?.startsWith('HPE_') && inflight.res.req.complete) {
        // A request pipelined behind this whole one does not parse: this one is answered first,
        // then the 400, and the connection closes (a client that left meanwhile gets neither).
        const res = inflight.res;
        res.once('finish', () => this.#answerOnSocket(listener, error, socket, true));
        res.once('close', () => res.writableFinished || socket.destroy());
        return;
      }
      socket.destroy();
      return;
    }
    this.#answerOnSocket(listener, error, socket, false);
  }

  /** Answers a client error on the socket and closes it (client-errors.ts). */
  #answerOnSocket(listener: Listener, error: ClientError, socket: Duplex, pipelined: boolean): void {
    const settings = this.#current?.runtime.config.settings;
    if (!settings) {
      socket.destroy();
      return;
    }
    // Bytes of a request not answered yet: a client that sent part of its headers, not an idle or preconnected one.
    const received = (socket as Socket).bytesRead - (this.#connectionRequests.get(socket)?.bytesAtRest ?? 0);
    answerClientError(error, socket, { settings, limits: this.#limits, logSink: this.#logSink, tls: listener.tls, received, pipelined });
  }

  /**
   * The error a client error gives the request in flight, when it can still answer: a body that
   * did not arrive in time (408), or one the parser refused (400: a bad chunk, a coding it cannot
   * frame), rather than a close that would read as the client's. A parse error once the body was
   * whole belongs to a pipelined request behind it: null (#onClientError answers that one).
   */
  #requestBodyFailure(error: ClientError, res: ServerResponse): GatewayError | null {
    if (res.headersSent) return null;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      const detail = `the request body did not arrive within ${this.#limits.bodyTimeoutMs}ms of the request's start (PORTICO_GATEWAY_BODY_TIMEOUT)`;
      return new GatewayError('client_request', detail, { status: 408, headers: { connection: 'close' } });
    }
    if (!error.code?.startsWith('HPE_') || res.req.complete) return null;
    return new GatewayError('client_request', `the request body could not be parsed: ${error.code} ${error.message}`, { status: 400, headers: { connection: 'close' } });
  }

  /** https_dev_proxy listeners follow the applied entries: a new target port, a new certificate, or closed when gone. */
  #retargetTlsListeners(config: GatewayConfig, credentials: DevCredentials | null): void {
    const targets = new Map(config.settings.httpsDevProxy.map((e) => [e.tlsPort, e.plainPort]));
    for (const [tlsPort, listener] of this.#tlsListeners) {
      const target = targets.get(tlsPort);
      if (target === undefined) {
        void this.#closeListener(listener).then(() => this.#tlsListeners.get(tlsPort) === listener && this.#tlsListeners.delete(tlsPort));
        continue;
      }
      listener.port = target;
      if (credentials) (listener.server as TlsServer).setSecureContext(credentials);
    }
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

  #onRequest(listener: Listener, req: IncomingMessage, res: ServerResponse, upgrade?: UpgradeHooks): void {
    const current = this.#current;
    if (!current) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('gateway not configured\n');
      return;
    }
    // The request finishes on the runtime it arrived on, whatever is applied meanwhile.
    current.inflight += 1;
    const lifetime = new RequestLifetime();
    const connection = this.#connection(req, listener.port);
    const base = { runtime: current.runtime, port: listener.port, lifetime, tls: listener.tls, fallbackHost: connection.fallbackHost };
    const slot: RequestSlot = upgrade ? { ...base, ...upgrade } : base;
    const entry: InFlight = { lifetime, res, done: null };
    connection.inflight.push(entry);
    // Held here: Node's stream.pipeline sets `req.socket` to null when it destroys a request
    // whose body a backend stopped reading (it answered first), which would leave settle nothing to read.
    const socket = req.socket;
    const settle = (): void => {
      connection.bytesAtRest = socket.bytesRead;
      const at = connection.inflight.indexOf(entry);
      if (at !== -1) connection.inflight.splice(at, 1);
      if (connection.closed && connection.inflight.length === 0) this.#open.delete(connection);
      current.inflight -= 1;
      this.#releaseIfIdle(current);
      if (listener.closing) listener.server.closeIdleConnections();
    };
    entry.done = handleRequest(this.#deps, slot, req, res).then(settle, (error: unknown) => {
      this.#options.logger.error('gateway request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('internal error\n');
      else res.destroy();
      settle();
    });
  }

  /** The requests of a client connection; its first request starts following its close. */
  #connection(req: IncomingMessage, port: number): ConnectionRequests {
    const socket = req.socket;
    let connection = this.#connectionRequests.get(socket);
    if (!connection) {
      const requests: ConnectionRequests = { inflight: [], fallbackHost: localHost(req.socket, port), closed: false, bytesAtRest: 0 };
      socket.once('close', () => {
        requests.closed = true;
        if (requests.inflight.length === 0) this.#open.delete(requests);
        for (const entry of requests.inflight) if (!entry.res.writableFinished) entry.lifetime.cancel(new GatewayError('client_request', 'client closed the connection'));
      });
      this.#connectionRequests.set(socket, requests);
      this.#open.add(requests);
      connection = requests;
    }
    return connection;
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

  /** The requests in flight on every connection. */
  #inflightRequests(): InFlight[] {
    return [...this.#open].flatMap((connection) => connection.inflight);
  }

  /** Graceful shutdown; idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#draining = true;
    await this.#queue;
    const listeners = [...this.#listeners.values(), ...this.#tlsListeners.values()];
    // The delay lets load balancers see the health answer turn; with no port open there is nobody to tell.
    if (this.#options.shutdownDelayMs > 0 && listeners.length > 0) await new Promise((resolve) => setTimeout(resolve, this.#options.shutdownDelayMs));
    const closed = Promise.all(listeners.map((l) => this.#closeListener(l)));
    // Open websockets count as in flight: they get the same deadline, then are closed (1001).
    const drained = Promise.all([...this.#inflightRequests().map((f) => f.done), this.#websockets.idle()]);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.#options.shutdownTimeoutMs)));
    // The connections count too: one still sending its request head (or a body after its answer) has no request in flight, yet keeps the listener open.
    const outcome = await Promise.race([Promise.all([drained, closed]).then(() => 'drained' as const), deadline]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      const inflight = this.#inflightRequests();
      this.#options.logger.warn('gateway shutdown timeout: aborting in-flight requests', { inflight: inflight.length, websockets: this.#websockets.size });
      for (const f of inflight) f.lifetime.cancel(new GatewayError('server_shutdown', 'shutdown timeout reached'));
      for (const l of listeners) l.server.closeAllConnections();
    }
    // A listener's close waits for its upgraded sockets too.
    await Promise.all([closed, outcome === 'timeout' ? this.#websockets.closeAll() : undefined]);
    this.#listeners.clear();
    this.#tlsListeners.clear();
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

/** The hosts of the server blocks that listen on `port`, with where each block is (`hosts of server "a" (portico.hcl:12)`). */
function serversOn(config: GatewayConfig, port: number): string {
  const servers = config.servers.filter((server) => server.hosts.some((h) => h.port === port));
  const named = servers.map((server) => `${server.name === null ? 'server' : `server ${JSON.stringify(server.name)}`} (${server.range.filename}:${server.range.start.line})`);
  return named.length === 0 ? 'the hosts of the server blocks' : `the hosts of ${named.join(' and ')}`;
}
