/**
 * Upgrade requests on the gateway's listeners. Each one goes through the usual request
 * pipeline with a response on the raw socket (always `Connection: close`: Node stops parsing
 * a connection once it asked for an upgrade); when the endpoint's websockets proxy got a 101
 * from its backend and the answer is still 101 after the modifiers, the client side is
 * upgraded with the answer's headers and frames are relayed. Open connections are tracked
 * for shutdown.
 */
import { validateHeaderName, validateHeaderValue, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { CaCache } from '../backend/transport.js';
import type { GatewayConfig } from '../config/model.js';
import type { EndpointHandler, GatewayLogSink, GatewayResponse } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { responseOnSocket } from '../http/socket-response.js';
import { connectBackend, type OpenLeg } from './backend-leg.js';
import { relayFrames, type Relay } from './frame-relay.js';
import { upgradeEndpointHandler } from './upgrade-endpoint-handler.js';
import { offeredProtocols } from './upgrade-request.js';

/** ws's default; the same on both legs, so a message one leg accepts the other can carry. */
const MAX_PAYLOAD_BYTES = 100 * 1024 * 1024;

/** Headers the client leg's handshake writes itself, or that cannot go with a 101. */
const OWN_HEADERS: ReadonlySet<string> = new Set(['connection', 'upgrade', 'sec-websocket-accept', 'sec-websocket-protocol', 'sec-websocket-extensions', 'content-length', 'transfer-encoding', 'keep-alive']);

export interface WebsocketUpgradesOptions {
  /** The gateway's endpoint handler; upgrades run through it. */
  readonly endpointHandler: EndpointHandler;
  /** Receives the backend line of each handshake. */
  readonly logSink: GatewayLogSink;
}

/** What the request pipeline uses instead of its own for one upgrade request. */
export interface UpgradeHooks {
  readonly endpointHandler: EndpointHandler;
  /**
   * Answers a websocket upgrade (resolving with 0 bytes), or rejects with a `client_request`
   * GatewayError when the client left before it; null when the response is to be sent as plain HTTP.
   */
  readonly respond: (response: GatewayResponse) => Promise<number> | null;
}

export interface AcceptedUpgrade {
  /** A response on the upgrade's socket, closed once it is sent. */
  readonly response: ServerResponse;
  readonly hooks: UpgradeHooks;
}

export interface WebsocketUpgrades {
  accept(req: IncomingMessage, socket: Duplex, head: Buffer): AcceptedUpgrade;
  /** Open websocket connections. */
  readonly size: number;
  /** Resolves once no websocket connection is open. */
  idle(): Promise<void>;
  /** Closes every open connection (default 1001 going away); resolves when all are closed. */
  closeAll(code?: number, reason?: string): Promise<void>;
}

export function createWebsocketUpgrades({ endpointHandler, logSink }: WebsocketUpgradesOptions): WebsocketUpgrades {
  const relays = new Set<Relay>();
  let idleWaiters: (() => void)[] = [];
  // Per configuration, as the backends' own: a reload rereads the CA files.
  const caCaches = new WeakMap<GatewayConfig, CaCache>();
  const log = logSink.write.bind(logSink);
  const answers = new WeakMap<IncomingMessage, { lines: string[]; protocol: string }>();
  const server = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: MAX_PAYLOAD_BYTES,
    handleProtocols: (_offered, req) => answers.get(req)?.protocol || false,
  });
  server.on('headers', (lines: string[], req: IncomingMessage) => lines.push(...(answers.get(req)?.lines ?? [])));

  const caCacheFor = (config: GatewayConfig): CaCache => {
    let cache = caCaches.get(config);
    if (!cache) caCaches.set(config, (cache = new CaCache()));
    return cache;
  };

  const idle = (): Promise<void> => (relays.size === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve)));

  const ended = (relay: Relay): void => {
    relays.delete(relay);
    if (relays.size > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };

  return {
    get size() {
      return relays.size;
    },

    accept(req: IncomingMessage, socket: Duplex, head: Buffer): AcceptedUpgrade {
      // Node gave up the socket: its errors are ours until ws takes it.
      const response = responseOnSocket(req, socket);
      let leg: OpenLeg | null = null;
      let timeoutMs: number | null = null;
      let relaying = false;
      // A request that failed between the backend's 101 and the answer must not leave the backend open.
      socket.once('close', () => {
        if (leg !== null && !relaying) leg.socket.terminate();
      });

      const handler = upgradeEndpointHandler(endpointHandler, async (ctx, proxy, client, request) => {
        const result = await connectBackend({
          backend: client.config,
          settings: ctx.config.settings,
          health: ctx.backends.health,
          request,
          protocols: offeredProtocols(ctx.request.headers),
          caCache: caCacheFor(ctx.config),
          maxPayload: MAX_PAYLOAD_BYTES,
          log,
        });
        leg = result.open;
        timeoutMs = proxy.websockets?.timeout ?? null;
        return result.response;
      });

      return {
        response,
        hooks: {
          endpointHandler: handler,
          respond: function answerUpgrade(final: GatewayResponse): Promise<number> | null {
            const backend: OpenLeg | null = leg;
            if (backend === null) return null;
            if (final.status !== 101) {
              // An error handler, a response block or set_response_status answered instead.
              backend.socket.terminate();
              return null;
            }
            if (final.body !== null && !Buffer.isBuffer(final.body)) final.body.destroy();
            answers.set(req, { lines: headerLines(final.headers), protocol: backend.socket.protocol });
            // ws completes the handshake synchronously, or gives up on a socket already gone.
            const upgraded: { client: WebSocket | null } = { client: null };
            server.handleUpgrade(req, socket, head, (ws) => (upgraded.client = ws));
            if (upgraded.client === null) {
              backend.socket.terminate();
              return Promise.reject(new GatewayError('client_request', 'client closed the connection before the websocket handshake was answered'));
            }
            relaying = true;
            const relay: Relay = relayFrames(upgraded.client, backend.socket, backend.early.closed, { timeoutMs, onEnd: () => ended(relay) });
            relays.add(relay);
            return Promise.resolve(0);
          },
        },
      };
    },

    idle,

    closeAll(code = 1001, reason = 'gateway shutting down'): Promise<void> {
      const done = idle();
      for (const relay of relays) relay.close(code, reason);
      return done;
    },
  };
}

/** The 101's headers as `name: value` lines, without those the handshake writes; a header Node would refuse is left out. */
function headerLines(headers: GatewayResponse['headers']): string[] {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (OWN_HEADERS.has(name.toLowerCase())) continue;
    for (const v of typeof value === 'string' ? [value] : value) {
      try {
        validateHeaderName(name);
        validateHeaderValue(name, v);
      } catch {
        continue;
      }
      lines.push(`${name}: ${v}`);
    }
  }
  return lines;
}
