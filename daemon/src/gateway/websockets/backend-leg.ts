/**
 * The backend side of a websocket upgrade: the proxy's request (URL, headers, modifiers
 * already applied by the endpoint) sent as a websocket handshake with the `ws` client, over
 * the backend's TLS settings. A 101 gives an open, paused socket; any other answer is the
 * backend's response, which the client gets like any proxied response.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import WebSocket from 'ws';
import { formatMs, shortMessage } from '../backend/backend-errors.js';
import { backendLogRecord } from '../backend/backend-log.js';
import { hostOnly, type CaCache } from '../backend/transport.js';
import type { BackendConfig, Settings } from '../config/model.js';
import type { BackendRequest, BackendResponse, BackendResponseHead, GatewayLogRecord, HealthMonitor } from '../contracts.js';
import { asGatewayError, GatewayError } from '../errors/error-types.js';

/** How a side closed: what the relay passes on when it closed before the relay started. */
export interface CloseInfo {
  readonly code: number;
  readonly reason: Buffer;
}

/** A backend that switched protocols: the socket is paused until the client side is ready. */
export interface OpenLeg {
  readonly socket: WebSocket;
  /** Set when the backend closed before the relay took over. */
  readonly early: { closed: CloseInfo | null };
}

export interface BackendLegInput {
  readonly backend: BackendConfig;
  readonly settings: Settings;
  readonly health: HealthMonitor;
  readonly request: BackendRequest;
  /** The client's offered subprotocols; the backend picks one of them. */
  readonly protocols: readonly string[];
  readonly caCache: CaCache;
  readonly maxPayload: number;
  readonly log: ((record: GatewayLogRecord) => void) | null;
}

export interface BackendLegResult {
  readonly response: BackendResponse;
  readonly open: OpenLeg | null;
}

/** The handshake generates these itself (or they describe the client's own connection). */
const HANDSHAKE_HEADERS: ReadonlySet<string> = new Set(['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol', 'sec-websocket-accept', 'connection', 'upgrade', 'content-length', 'transfer-encoding']);

/** Rejects like a backend client: `backend`, `backend_timeout`, `backend_unhealthy`, or `configuration`. */
export function connectBackend(input: BackendLegInput): Promise<BackendLegResult> {
  const { backend, request } = input;
  const origin = backend.origin ?? request.url.origin;
  const startedAt = new Date();
  const started = performance.now();
  const logged = (status: number | null, head: BackendResponseHead | null, error: Error | null): void => {
    if (!input.log) return;
    let custom: Readonly<Record<string, unknown>> | null = null;
    let customError: string | undefined;
    try {
      custom = request.customLogFields?.(head) ?? null;
    } catch (e) {
      customError = e instanceof Error ? e.message : String(e);
    }
    const ttfb = status === null ? null : performance.now() - started;
    input.log(
      backendLogRecord({
        startedAt,
        requestId: request.requestId,
        backend: backend.name,
        handler: request.handler,
        method: request.method,
        url: request.url,
        requestHeaders: request.headers,
        requestBytes: 0,
        status,
        responseHeaders: head?.headers ?? null,
        responseBytes: Number(firstValue(head?.headers['content-length'])) || 0,
        protocol: status === null ? null : 'http/1.1',
        timings: { dns: null, tcp: null, tls: null, ttfb, total: performance.now() - started },
        error,
        custom,
        ...(customError === undefined ? {} : { customError }),
      }),
    );
  };

  const refused = refusal(input, origin);
  if (refused) {
    logged(null, null, refused);
    return Promise.reject(refused);
  }
  const handshakeTimeout = backend.connectTimeout + backend.ttfbTimeout;
  const url = new URL(request.url.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) if (!HANDSHAKE_HEADERS.has(name)) headers[name] = typeof value === 'string' ? value : [...value];
  const caFile = backend.caFile ?? input.settings.caFile;
  const servername = backend.hostname?.kind === 'static' ? hostOnly(backend.hostname.value) : null;
  const socket = new WebSocket(url, [...input.protocols], {
    headers,
    handshakeTimeout,
    perMessageDeflate: false,
    followRedirects: false,
    maxPayload: input.maxPayload,
    rejectUnauthorized: !backend.disableCertificateValidation,
    ...(caFile ? { secureContext: input.caCache.get(caFile, backend.name) } : {}),
    ...(servername ? { servername } : {}),
  });

  return new Promise<BackendLegResult>((resolve, reject) => {
    let settled = false;
    let head: BackendResponseHead | null = null;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      request.signal.removeEventListener('abort', onAbort);
      return true;
    };
    const onAbort = (): void => {
      if (!settle()) return;
      socket.terminate();
      const error = asGatewayError(request.signal.reason);
      logged(null, null, error);
      reject(error);
    };
    if (request.signal.aborted) return onAbort();
    request.signal.addEventListener('abort', onAbort, { once: true });

    socket.once('upgrade', (res: IncomingMessage) => (head = { status: res.statusCode ?? 101, headers: passedHeaders(res) }));
    socket.once('open', () => {
      // No frame may be read before the client side can take it.
      socket.pause();
      const early: OpenLeg['early'] = { closed: null };
      socket.once('close', (code: number, reason: Buffer) => (early.closed = { code, reason }));
      if (!settle()) return socket.terminate();
      const responseHead = head ?? { status: 101, headers: {} };
      logged(101, responseHead, null);
      resolve({ response: { status: 101, headers: responseHead.headers, body: Readable.from([]) }, open: { socket, early } });
    });
    socket.once('unexpected-response', (_req, res: IncomingMessage) => {
      if (!settle()) return res.destroy();
      const responseHead = { status: res.statusCode ?? 502, headers: passedHeaders(res) };
      res.once('close', () => logged(responseHead.status, responseHead, null));
      resolve({ response: { status: responseHead.status, headers: responseHead.headers, body: res }, open: null });
    });
    socket.on('error', (error: Error) => {
      if (!settle()) return;
      const failure = error.message.includes('handshake has timed out')
        ? new GatewayError('backend_timeout', `${origin}: websocket handshake timeout after ${formatMs(handshakeTimeout)}`, { cause: error, source: backend.name })
        : new GatewayError('backend', `${origin}: ${shortMessage(error)}`, { cause: error, source: backend.name });
      logged(head?.status ?? null, head, failure);
      reject(failure);
    });
  });
}

/** What the client gateway cannot honour on this leg, refused before anything is sent. */
function refusal(input: BackendLegInput, origin: string): GatewayError | null {
  const { backend } = input;
  const state = input.health.snapshot()[backend.name];
  if (state?.state === 'unhealthy' && !backend.useWhenUnhealthy) {
    return new GatewayError('backend_unhealthy', `${origin}: backend "${backend.name}" is unhealthy${state.error ? `: ${state.error}` : ''}`, { source: backend.name });
  }
  if (backend.proxy !== null) return new GatewayError('configuration', `backend "${backend.name}": websockets cannot go through its forward proxy (proxy = ${JSON.stringify(backend.proxy)}) in this build`, { source: backend.name });
  if (backend.oauth2 !== null) return new GatewayError('configuration', `backend "${backend.name}": websockets cannot use its oauth2 client credentials in this build`, { source: backend.name });
  return null;
}

/** The backend's answer headers, lower-case, without the ones each leg's handshake makes for itself. */
function passedHeaders(res: IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined || (res.statusCode === 101 && HANDSHAKE_HEADERS.has(name))) continue;
    out[name] = value;
  }
  return out;
}

function firstValue(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.[0];
}
