/**
 * What the front refuses before any routing: the Node server options that bound how long a
 * client may take and how much it may send, and the checks of a parsed request line (too long
 * a target, an HTTP/0.9 or HTTP/2.0 request line, HTTP/1.1 without Host, several Host headers,
 * a Host no host could be, an absolute URL naming another host, an expectation other than
 * 100-continue) the parser lets through.
 */
import type { IncomingMessage, ServerOptions } from 'node:http';
import { DEFAULT_GATEWAY_FRONT, type GatewayFrontSettings } from './front-settings.js';
import { GatewayError } from '../errors/error-types.js';

export type FrontLimits = GatewayFrontSettings;
export const DEFAULT_FRONT_LIMITS: FrontLimits = DEFAULT_GATEWAY_FRONT;

/** How often Node looks for requests past their header or body deadline (its default, 30 s, would let a slow client stay 40 s). */
export function checkingIntervalMs(limits: FrontLimits): number {
  return Math.max(50, Math.min(1000, Math.floor(limits.headerTimeoutMs / 4)));
}

/** Options for `http.createServer` and `https.createServer`. */
export function nodeServerOptions(limits: FrontLimits): ServerOptions {
  return {
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.bodyTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    connectionsCheckingInterval: checkingIntervalMs(limits),
    maxHeaderSize: limits.maxHeaderBytes,
    // Refused by checkRequestLine instead, so the answer is the gateway's error page with an access line.
    requireHostHeader: false,
  };
}

/** The front's own refusals of a request Node parsed: null when it may go on. */
export function checkRequestLine(req: IncomingMessage, limits: FrontLimits): GatewayError | null {
  // Node parses `GET /` without a version as HTTP/0.9; nothing legitimate sends that any more.
  if (req.httpVersionMajor === 0) return new GatewayError('client_request', 'an HTTP/0.9 request (a request line without a version) is not served', { headers: { connection: 'close' } });
  const target = req.url ?? '';
  if (Buffer.byteLength(target) > limits.maxUrlBytes) {
    return new GatewayError('client_request', `the request target is longer than ${limits.maxUrlBytes} bytes (PORTICO_GATEWAY_MAX_URL_LENGTH)`, { status: 414 });
  }
  // llhttp takes `HTTP/2.0` in a request line too; an HTTP/2 client starts with the PRI preface instead.
  if (req.httpVersionMajor !== 1) {
    return new GatewayError('client_request', `HTTP/${req.httpVersion} in an HTTP/1 request line is not served; send HTTP/1.1 or HTTP/1.0`, { status: 505, headers: { connection: 'close' } });
  }
  const host = req.headers.host;
  if (req.httpVersionMinor === 1 && host === undefined) {
    return new GatewayError('client_request', 'an HTTP/1.1 request without a Host header');
  }
  // Node answers an expectation other than 100-continue with 417 itself, unlogged, unless asked to
  // leave it to the server (the `checkExpectation` listener); HTTP/1.0 ignores Expect (RFC 9110 §10.1.1).
  const expectation = req.headers.expect;
  if (expectation !== undefined && req.httpVersionMinor === 1 && !/^\s*100-continue\s*$/i.test(expectation)) {
    return new GatewayError('client_request', `the expectation ${JSON.stringify(expectation.slice(0, 64))} cannot be met; only "100-continue" is understood`, { status: 417, headers: { connection: 'close' } });
  }
  // Node keeps the first of several Host headers; a proxy in front might have used another, so
  // the server (and its access rules) chosen here might not be the one it meant (RFC 9112 §3.2).
  if (hostHeaders(req.rawHeaders) > 1) return new GatewayError('client_request', 'more than one Host header; send exactly one', { headers: { connection: 'close' } });
  if (host !== undefined && NOT_IN_A_HOST.test(host)) {
    return new GatewayError('client_request', `the Host header ${JSON.stringify(host.slice(0, 64))} holds a character no host name, address or port has; send host or host:port`, { headers: { connection: 'close' } });
  }
  if (originForm(target) === null) {
    return new GatewayError('client_request', `the request target ${JSON.stringify(target.slice(0, 64))} is neither a path ("/...") nor an absolute http(s) URL; "*" and host:port targets are not served`);
  }
  if (!target.startsWith('/')) {
    const mismatch = authorityMismatch(target, host);
    if (mismatch !== null) return new GatewayError('client_request', mismatch, { headers: { connection: 'close' } });
  }
  // A fragment is never sent to a server; a URL parser on the way to the backend would drop it after routing saw it.
  if (target.includes('#')) return new GatewayError('client_request', 'the request target contains "#" (a fragment); send it percent-encoded as %23');
  return null;
}

/**
 * A byte no `uri-host [ ":" port ]` has (RFC 9112 §3.2, RFC 3986 §3.2.2), leniently as the peer's
 * Go server reads it: letters, digits, the unreserved and sub-delims characters, `%` (encoded
 * bytes, IPv6 zones), `:` and brackets pass; `@` (user information a proxy might strip to find
 * another host), `/`, spaces and anything else do not.
 */
const NOT_IN_A_HOST = /[^0-9A-Za-z!$%&'()*+,\-.:;=[\]_~]/;

/** How many Host header lines a request has (rawHeaders: name, value, name, value, ...). */
function hostHeaders(raw: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && (name === 'Host' || name === 'host' || name.toLowerCase() === 'host')) n += 1;
  }
  return n;
}

/**
 * Why an absolute-form target's authority does not name the host its Host header names, or
 * null when both name the same (letter case and the scheme's default port aside) or there is
 * no Host header (HTTP/1.0). RFC 9112 §3.2 has a client send the same in both; a server that
 * picked by one while a proxy in front read the other would serve another server's routes than
 * the proxy meant, so a request that differs is refused rather than read either way.
 */
function authorityMismatch(target: string, host: string | undefined): string | null {
  const parts = /^(https?):\/\/([^/?#]*)/i.exec(target);
  if (parts === null || host === undefined) return null;
  const authority = parts[2] as string;
  if (authority.includes('@')) return 'the request target carries user information ("user@host"); send the URL without it';
  const defaultPort = (parts[1] as string).toLowerCase() === 'https' ? ':443' : ':80';
  const plain = (h: string): string => {
    const lower = h.toLowerCase();
    return lower.endsWith(defaultPort) ? lower.slice(0, -defaultPort.length) : lower;
  };
  if (plain(authority) === plain(host)) return null;
  return `the request target names the host ${JSON.stringify(authority.slice(0, 64))} and the Host header ${JSON.stringify(host.slice(0, 64))}; send the same host in both (RFC 9112 §3.2)`;
}

/**
 * The request target in origin-form, as sent: a path stays as it is, absolute-form
 * (`http://host:8080/a?b`, RFC 9112 §3.2.2) gives its path and query (`/a?b`, or `/` for
 * none), so routing, access controls and the backend all see the path a backend resolves;
 * null for any other form (`*`, `host:port`, a relative path).
 */
export function originForm(target: string): string | null {
  if (target.startsWith('/')) return target;
  const authority = /^https?:\/\/[^/?#]*/i.exec(target);
  if (authority === null) return null;
  const rest = target.slice(authority[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}
