/**
 * The endpoint handler of a request that arrived as an upgrade. A websocket upgrade to an
 * endpoint with a websockets proxy runs the endpoint exactly as a normal request (access
 * controls, permissions, modifiers, error handlers); only that proxy's backend exchange is the
 * websocket handshake. Any other upgrade request is served as plain HTTP.
 */
import type { BackendClient, BackendRequest, BackendResponse, BackendSet, EndpointContext, EndpointHandler, GatewayResponse } from '../contracts.js';
import type { ProxyConfig } from '../config/model.js';
import { hasClientBody } from '../endpoint/client-body.js';
import { GatewayError } from '../errors/error-types.js';
import { checkHandshake, isWebsocketUpgrade, websocketProxy } from './upgrade-request.js';

/** Sends the websocket handshake of `proxy` to the backend of `client`. */
export type ConnectBackend = (ctx: EndpointContext, proxy: ProxyConfig, client: BackendClient, request: BackendRequest) => Promise<BackendResponse>;

export function upgradeEndpointHandler(inner: EndpointHandler, connect: ConnectBackend): EndpointHandler {
  return {
    guard: (ctx) => inner.guard(ctx),
    handle: async function handleUpgrade(ctx: EndpointContext): Promise<GatewayResponse> {
      const proxy = websocketProxy(ctx.endpoint);
      const websocket = proxy !== null && isWebsocketUpgrade(ctx.request.headers);
      const check = (): void => {
        // Node does not parse the body of an upgrade request: it could not be forwarded.
        if (hasClientBody(ctx.request.headers)) throw new GatewayError('client_request', 'a request asking for a protocol upgrade (Upgrade header) cannot carry a body');
        if (websocket) checkHandshake(ctx.request);
      };
      // On a route with access controls, once they passed (with the methods), as the peer's order: a
      // client without credentials learns nothing of the route, not even that it takes websockets.
      const guarded = ctx.endpoint.access.effective.length > 0;
      if (!guarded) check();
      const methodCheck = guarded
        ? (): void => {
            ctx.methodCheck?.();
            check();
          }
        : (ctx.methodCheck ?? null);
      // A spread copies own properties only: `signal` is a getter of the context's class.
      if (!websocket) return inner.handle(guarded ? { ...ctx, signal: ctx.signal, methodCheck } : ctx);
      return inner.handle({ ...ctx, signal: ctx.signal, methodCheck, backends: handshakeOnce(ctx.backends, proxy, (client, request) => connect(ctx, proxy, client, request)) });
    },
  };
}

/**
 * The request's backends, where the first exchange of the websockets proxy is the handshake;
 * every other block (and an error handler's proxy of the same name) sends as usual.
 */
function handshakeOnce(backends: BackendSet, proxy: ProxyConfig, handshake: (client: BackendClient, request: BackendRequest) => Promise<BackendResponse>): BackendSet {
  let taken = false;
  return {
    health: backends.health,
    close: () => backends.close(),
    get(name: string): BackendClient {
      const client = backends.get(name);
      if (name !== proxy.backend) return client;
      return {
        config: client.config,
        send: function sendHandshake(request: BackendRequest): Promise<BackendResponse> {
          if (taken || request.handler !== proxy.name) return client.send(request);
          taken = true;
          return handshake(client, request);
        },
      };
    },
  };
}
