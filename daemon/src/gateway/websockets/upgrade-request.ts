/**
 * What makes a request a websocket upgrade (RFC 6455 4.2.1), and which proxy of an endpoint
 * takes it. Node hands the gateway every request with `Connection: upgrade` and an `Upgrade`
 * header as an upgrade; only `Upgrade: websocket` to a websockets proxy is proxied as one.
 */
import type { EndpointConfig, Modifiers, ProxyConfig } from '../config/model.js';
import type { RequestInfo } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';

type Headers = RequestInfo['headers'];

export function isWebsocketUpgrade(headers: Headers): boolean {
  return first(headers['upgrade'])?.trim().toLowerCase() === 'websocket' && tokens(headers['connection']).includes('upgrade');
}

/** The endpoint's proxy with websockets (the loader allows one), or null. */
export function websocketProxy(endpoint: EndpointConfig): ProxyConfig | null {
  return endpoint.proxies.find((p) => p.websockets !== null) ?? null;
}

/** The websockets block's modifiers when this request is the upgrade that proxy takes; they apply after the proxy's own. */
export function websocketsModifiers(proxy: ProxyConfig, headers: Headers): readonly Modifiers[] {
  return proxy.websockets !== null && isWebsocketUpgrade(headers) ? [proxy.websockets.modifiers] : [];
}

const KEY = /^[+/0-9A-Za-z]{22}==$/;

/** Refuses a handshake the client leg could not complete, before the backend is contacted. */
export function checkHandshake(request: Pick<RequestInfo, 'method' | 'headers'>): void {
  if (request.method !== 'GET') throw new GatewayError('client_request', `a websocket handshake is a GET request, not ${request.method}`);
  if (!KEY.test(first(request.headers['sec-websocket-key'])?.trim() ?? '')) throw new GatewayError('client_request', 'the websocket handshake has no valid Sec-WebSocket-Key');
  const version = first(request.headers['sec-websocket-version'])?.trim();
  if (version !== '13' && version !== '8') throw new GatewayError('client_request', `unsupported Sec-WebSocket-Version ${JSON.stringify(version ?? '')} (13 and 8 are)`, { headers: { 'Sec-WebSocket-Version': '13, 8' } });
}

/** The subprotocols the client offers, in its order. */
export function offeredProtocols(headers: Headers): string[] {
  return tokens(headers['sec-websocket-protocol'], false);
}

function first(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.[0];
}

function tokens(value: string | readonly string[] | undefined, lower = true): string[] {
  if (value === undefined) return [];
  const all = (typeof value === 'string' ? [value] : value).flatMap((v) => v.split(',')).map((t) => t.trim()).filter((t) => t !== '');
  return lower ? all.map((t) => t.toLowerCase()) : all;
}
