/**
 * The `gateway_backend` log record: one per backend request (proxy, request, or health
 * check), written when the response ended or the exchange failed. Headers are an
 * allow-list; the URL has no credentials and no secret query values.
 */
import type { BackendTimings, GatewayLogRecord } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { isoTime } from '../logs/iso-time.js';
import { loggableUrl, loggedRequestHeaders, loggedResponseHeaders, type HeaderMap } from './headers.js';

export interface BackendLogInput {
  /** Epoch ms (or a Date) of the request's start. */
  readonly startedAt: number | Date;
  readonly requestId: string;
  readonly backend: string;
  readonly handler: string;
  readonly method: string;
  readonly url: URL;
  readonly requestHeaders: HeaderMap;
  readonly requestBytes: number;
  readonly status: number | null;
  readonly responseHeaders: HeaderMap | null;
  readonly responseBytes: number;
  /** `http/1.1`, `h2`, or null when no response came. */
  readonly protocol: string | null;
  readonly timings: BackendTimings;
  /** The failure; a plain Error when the reader closed the body early (not the backend's fault). */
  readonly error: Error | null;
  readonly custom: Readonly<Record<string, unknown>> | null;
  /** Why evaluating custom_log_fields failed. */
  readonly customError?: string;
}

export function backendLogRecord(input: BackendLogInput): GatewayLogRecord {
  const { error } = input;
  const level = error === null ? 'info' : error instanceof GatewayError ? 'error' : 'warn';
  return {
    type: 'gateway_backend',
    level,
    timestamp: isoTime(input.startedAt),
    uid: input.requestId,
    backend: input.backend,
    handler: input.handler,
    method: input.method,
    url: loggableUrl(input.url),
    status: input.status,
    request: {
      name: input.handler,
      method: input.method,
      origin: input.url.host,
      host: input.url.hostname,
      path: input.url.pathname,
      proto: input.url.protocol.replace(/:$/, ''),
      headers: loggedRequestHeaders(input.requestHeaders),
      bytes: input.requestBytes,
    },
    response: input.status === null ? null : { status: input.status, protocol: input.protocol, headers: loggedResponseHeaders(input.responseHeaders ?? {}), bytes: input.responseBytes },
    timings: input.timings,
    ...(error instanceof GatewayError ? { error_type: error.kind, message: error.detail } : error ? { message: error.message } : {}),
    ...(input.custom ? { custom: input.custom } : {}),
    ...(input.customError ? { custom_error: input.customError } : {}),
  };
}
