/**
 * One client request from arrival to its access log line: request id, URL (forwarded
 * headers), the health path before anything else, dispatch, error rendering, CORS, the
 * front's own response header modifiers, the request id header, secure cookies, gzip.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { AccessDenial, AccessLogFields, EndpointHandler, GatewayLogSink, GatewayResponse, RequestInfo } from '../contracts.js';
import { errorResponse } from '../errors/error-response.js';
import { asGatewayError, GatewayError } from '../errors/error-types.js';
import { logAccess, logCustomFieldsError } from '../logs/log-sink.js';
import { applyResponseHeaderModifiers, evalCustomLogFields, RequestScope } from '../eval/index.js';
import { trailersOf } from '../backend/trailers.js';
import { declaredBodyLength } from '../../core/body-length.js';
import { maybeGzip, stripSecureCookies } from './client-response.js';
import { clientAddress, localHost } from './client-address.js';
import { corsHeaders } from './cors.js';
import { dispatch, emptyPlacement, type Placement } from './dispatch.js';
import { headerKey } from './header-key.js';
import { requestHost, requestUrl } from './forwarded-url.js';
import { requestIdFor } from './request-id.js';
import { checkRequestLine, originForm, type FrontLimits } from './front-limits.js';
import type { RequestLifetime } from './request-lifetime.js';
import { checkRequestPath } from './request-path.js';
import { unreadBodyEndsConnection } from './unread-body.js';
import type { Runtime } from './runtime.js';

export interface PipelineDeps {
  readonly endpointHandler: EndpointHandler;
  readonly logSink: GatewayLogSink;
  /** True once shutdown began: the health path answers 500. */
  isDraining(): boolean;
  /** True when this port's listener is closing: answers carry `Connection: close`. */
  isClosing(port: number): boolean;
  /** Told of every request an access control or permission check refused. */
  onAccessDenied?(denial: AccessDenial): void;
  readonly limits: FrontLimits;
}

export interface RequestSlot {
  readonly runtime: Runtime;
  /** The configured port the request arrived on. */
  readonly port: number;
  /** Cancelled when the client goes away, the body timeout passes or the shutdown deadline. */
  readonly lifetime: RequestLifetime;
  /** The request came in on an https_dev_proxy listener. */
  readonly tls?: boolean;
  /** The connection's local `address:port` (the host of a request that names none), when known. */
  readonly fallbackHost?: string;
  /** Replaces the server's endpoint handler for this request (upgrade requests: gateway/websockets). */
  readonly endpointHandler?: EndpointHandler;
  /** Writes the response itself (a websocket's 101; rejects when it could not), or gives null to have it sent as usual. */
  readonly respond?: (response: GatewayResponse) => Promise<number> | null;
}

export async function handleRequest(deps: PipelineDeps, slot: RequestSlot, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const startedAt = Date.now();
  const started = performance.now();
  const { runtime, port } = slot;
  const settings = runtime.config.settings;
  const method = (req.method ?? 'GET').toUpperCase();
  // Absolute-form targets route by their path (a target that is neither is refused by checkRequestLine below).
  const rawUrl = originForm(req.url ?? '/') ?? '/';
  const queryAt = rawUrl.indexOf('?');
  const path = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  const search = queryAt === -1 ? '' : rawUrl.slice(queryAt);
  const { id, refused: badRequestId } = requestIdFor(settings, req.headers);
  const fallbackHost = slot.fallbackHost ?? localHost(req.socket, port);
  const url = requestUrl(settings, req.headers, rawUrl, fallbackHost, slot.tls ? 'https' : 'http');
  const host = requestHost(settings, req.headers, fallbackHost);
  const log: AccessLogFields = {};
  const placement = emptyPlacement();
  // Routing fills in the path parameters and the wildcard.
  const info: RequestInfo = { id, method, url, clientIp: clientAddress(req.socket), headers: req.headers, startedAt, pathParams: NO_PARAMS, wildcard: null };

  let response: GatewayResponse;
  let failure: GatewayError | null = null;
  const refused = checkRequestLine(req, deps.limits);
  const health = !refused && path === settings.healthPath;
  if (refused) {
    failure = refused;
    response = errorResponse({ error: refused, template: placement.template, requestId: id, path, method });
  } else if (health) {
    log.handler = 'health';
    response = healthResponse(deps.isDraining(), method);
  } else {
    try {
      if (badRequestId !== null) throw new GatewayError('client_request', badRequestId);
      checkRequestPath(path);
      const endpointHandler = slot.endpointHandler ?? deps.endpointHandler;
      // The routes were compiled with the server's endpoint handler; one given for this request serves instead.
      response = await dispatch({ runtime, port, host, path, search, request: info, incoming: req, endpointHandler, compiled: slot.endpointHandler === undefined, log, logSink: deps.logSink, lifetime: slot.lifetime }, placement);
    } catch (error) {
      // The front's abort reason (body timeout, shutdown) says what happened better than the error it caused.
      const reason: unknown = slot.lifetime.reason;
      failure = asGatewayError(reason instanceof GatewayError ? reason : error);
      response = errorResponse({ error: failure, template: placement.template, requestId: id, path, method });
      if (failure.finish !== null) {
        try {
          // An error_handler without a response of its own: its modifiers apply to the rendered error.
          response = failure.finish(response);
        } catch (thrown) {
          failure = asGatewayError(thrown, 'evaluation');
          response = errorResponse({ error: failure, template: placement.template, requestId: id, path, method });
        }
      }
    }
  }

  if (log.denial && deps.onAccessDenied) {
    deps.onAccessDenied({ at: new Date(startedAt).toISOString(), type: log.denial.type, label: log.denial.label, server: placement.server?.name ?? null, endpoint: placement.route, method, path, clientIp: info.clientIp });
  }

  // The block's custom_log_fields, unless the endpoint handler evaluated them in its own scope.
  const ownFields = log.blockCustom === undefined ? placement.customLogFields : NO_LOG_FIELDS;
  // The front's own expressions (its response header modifiers, those fields) see the request alone; most requests have none.
  const scope = placement.modifiers.length > 0 || ownFields.length > 0 ? new RequestScope({ config: runtime.config, request: { ...info, pathParams: placement.pathParams, wildcard: placement.wildcard }, health: runtime.backends.health, access: runtime.access }) : null;
  const headers = response.headers;
  if (!health) {
    if (placement.cors) Object.assign(headers, mergeVary(headers.vary, corsHeaders(placement.cors, method, req.headers, placement.allowedMethods)));
    try {
      if (scope) for (const modifiers of placement.modifiers) applyResponseHeaderModifiers(headers, modifiers, scope);
    } catch (error) {
      log.errorDetail = `response header modifiers: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  if (settings.requestIdClientHeader !== '') headers[headerKey(settings.requestIdClientHeader)] = id;
  if (settings.secureCookies === 'strip') stripSecureCookies(headers);
  // An answer given before the request body was all read keeps the connection only for a short
  // rest nobody took, as Go's server (the peer's) does (unread-body.ts).
  let close = deps.isClosing(port);
  if (!close && slot.respond === undefined && !req.complete) {
    const ends = unreadBodyEndsConnection(req);
    close = typeof ends === 'boolean' ? ends : await ends;
  }
  if (close) headers.connection = 'close';
  const final = health ? response : maybeGzip(method, req.headers, response);

  let status = final.status;
  let responseBytes: number;
  const answered = slot.respond?.(final) ?? null;
  if (answered === null) {
    // A body in memory is written before send() returns: the access line follows in the same turn.
    const sent = send(res, final);
    responseBytes = typeof sent === 'number' ? sent : await sent;
  } else {
    try {
      responseBytes = await answered;
    } catch (error) {
      // The answer was never written (the client left before its websocket handshake was answered).
      failure = asGatewayError(error);
      status = failure.status;
      responseBytes = 0;
    }
  }

  // The block's own fields (server → api → endpoint/files/spa); the access controls' were added to `log.custom` as they ran.
  const custom = log.blockCustom ?? (scope && ownFields.length > 0 ? evalCustomLogFields(ownFields, scope, (error) => logCustomFieldsError(deps.logSink, id, error)) : null);
  logAccess(deps.logSink, {
    startedAt,
    durationMs: performance.now() - started,
    requestId: id,
    method,
    url,
    status,
    server: placement.server?.name ?? null,
    api: placement.api?.name ?? null,
    endpoint: placement.pattern,
    handler: log.handler ?? null,
    clientIp: info.clientIp,
    authUser: log.authUser ?? null,
    requestHeaders: req.headers,
    requestBytes: Number(req.headers['content-length'] ?? 0) || 0,
    tls: slot.tls ?? false,
    protocol: req.httpVersion === '1.1' ? 'HTTP/1.1' : `HTTP/${req.httpVersion}`,
    responseHeaders: final.headers,
    responseBytes,
    errorType: failure?.kind ?? log.errorType ?? null,
    message: failure?.detail ?? log.errorDetail ?? null,
    custom: log.custom === undefined && custom === null && log.handlerCustom === undefined ? NO_FIELDS : { ...log.custom, ...custom, ...log.handlerCustom },
    // Set on every entry (undefined: by the outcome), so every entry has one shape.
    level: health ? 'debug' : undefined,
  });
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
const NO_FIELDS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const NO_LOG_FIELDS: Placement['customLogFields'] = Object.freeze([]);

function healthResponse(draining: boolean, method: string): GatewayResponse {
  const text = draining ? 'unhealthy' : 'healthy';
  return {
    status: draining ? 500 : 200,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'content-length': String(text.length) },
    body: method === 'HEAD' ? null : Buffer.from(text),
  };
}

function mergeVary(current: string | string[] | undefined, cors: Record<string, string>): Record<string, string> {
  if (!cors.vary || current === undefined) return cors;
  const existing = Array.isArray(current) ? current.join(', ') : current;
  return { ...cors, vary: `${existing}, ${cors.vary}` };
}

/**
 * Writes the response; resolves with the body bytes written (the client going away ends it
 * early). The head goes as one flat list of name and value (no per-header calls), and a body
 * in memory goes with it in the same write. A streamed backend body's trailers follow it when
 * the response is chunked (backend/trailers.ts).
 */
function send(res: ServerResponse, response: GatewayResponse): Promise<number> | number {
  const noBody = response.status === 204 || response.status === 304;
  const body = response.body;
  ownFraming(response.headers, body, res.req.method === 'HEAD');
  const trailers = body === null || noBody || Buffer.isBuffer(body) ? undefined : trailersOf(body);
  const announced = trailers?.announced ?? null;
  // A Trailer header (the backend's announcement, or one a modifier set) only where trailers can
  // follow, a chunked body: Node refuses the whole head otherwise.
  const trailing = (announced !== null || response.headers['trailer'] !== undefined) && !noBody && chunked(res, response.headers);
  const lines = headLines(response.headers, noBody, trailing);
  if (announced !== null && trailing) lines.push('trailer', announced);
  res.writeHead(response.status, lines);
  if (body === null || noBody) {
    if (body !== null && !Buffer.isBuffer(body)) body.destroy();
    res.end();
    return 0;
  }
  if (Buffer.isBuffer(body)) {
    // A client that went away gets nothing, and the access line says so.
    const gone = res.destroyed;
    res.end(body);
    return gone ? 0 : body.length;
  }
  // Before pipe() ends the response on the body's end: the trailers go with that end.
  if (trailers) {
    body.once('end', () => {
      if (trailers.values !== null && res.chunkedEncoding) res.addTrailers(trailers.values);
    });
  }
  return pipeBody(body, res);
}

/**
 * The answer's framing is the gateway's, whatever a modifier or a response block set (Go's
 * server, the peer's, keeps it so too): no Transfer-Encoding from the headers (Node chunks a body of
 * unknown length itself), and a Content-Length only as long as the body that follows, where
 * that length is known (in memory, none, a backend's or a file's stream). A wrong one would let
 * the client read the rest of the body as the next answer on its connection. An answer to HEAD
 * has no body to measure (its Content-Length is the GET answer's): only a backend's own length
 * is put back there.
 */
function ownFraming(headers: GatewayResponse['headers'], body: GatewayResponse['body'], head: boolean): void {
  if (headers['transfer-encoding'] !== undefined) delete headers['transfer-encoding'];
  const declared = headers['content-length'];
  if (body === null) {
    if (!head && declared !== undefined && declared !== '0') headers['content-length'] = '0';
  } else if (Buffer.isBuffer(body)) {
    if (!head && declared !== undefined && declared !== String(body.length)) headers['content-length'] = String(body.length);
  } else {
    const own = declaredBodyLength(body);
    if (own === undefined || declared === own) return;
    if (own === null) delete headers['content-length'];
    else headers['content-length'] = own;
  }
}

/**
 * Whether Node will send this response chunked: no length of its own, a body (not HEAD), and a
 * client that takes chunks (HTTP/1.1; Node decides that per request).
 */
function chunked(res: ServerResponse, headers: GatewayResponse['headers']): boolean {
  return res.useChunkedEncodingByDefault && res.req.method !== 'HEAD' && headers['content-length'] === undefined;
}

/**
 * `[name, value, name, value...]` for writeHead; without Content-Length for an answer that has no
 * body, and without Trailer for one that cannot end with trailers.
 */
function headLines(headers: GatewayResponse['headers'], noBody: boolean, trailing: boolean): (string | string[])[] {
  const lines: (string | string[])[] = [];
  for (const name in headers) {
    if ((noBody && name === 'content-length') || (!trailing && name === 'trailer')) continue;
    const value = headers[name];
    if (value !== undefined) lines.push(name, value);
  }
  return lines;
}

/**
 * Streams a body into the response; resolves with the bytes read from it once the response
 * closed (finished, or the client went away). A failing body, or a client going away, ends
 * both sides: the status is already sent, so the socket is closed.
 */
function pipeBody(body: Readable, res: ServerResponse): Promise<number> {
  return new Promise((resolve) => {
    let bytes = 0;
    body.on('error', () => res.destroy());
    if (res.destroyed || res.closed) {
      body.destroy();
      resolve(0);
      return;
    }
    body.on('data', (chunk: Buffer | string) => (bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length));
    res.once('close', () => {
      if (!body.readableEnded) body.destroy();
      resolve(bytes);
    });
    body.pipe(res);
  });
}
