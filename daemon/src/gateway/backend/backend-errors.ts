/**
 * Turns what undici or the network throws into the gateway's error types: connection
 * failures are `backend`, connect/ttfb/total deadlines `backend_timeout`. The detail names
 * the origin and the cause; the client only ever sees the synopsis.
 */
import { GatewayError } from '../errors/error-types.js';

/** `2s`, `1.5s`, `250ms`: how a duration reads in an error message. */
export function formatMs(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(3))}s` : `${ms}ms`;
}

export interface ErrorContext {
  readonly backend: string;
  readonly origin: string;
  readonly connectTimeout: number;
  readonly ttfbTimeout: number;
}

export function backendError(error: unknown, context: ErrorContext): GatewayError {
  if (error instanceof GatewayError) return error;
  const source = context.backend;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new GatewayError('backend_timeout', `${context.origin}: connect timeout after ${formatMs(context.connectTimeout)}`, { cause: error, source });
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return new GatewayError('backend_timeout', `${context.origin}: ttfb timeout after ${formatMs(context.ttfbTimeout)}`, { cause: error, source });
  }
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    return new GatewayError('backend_timeout', `${context.origin}: body timeout`, { cause: error, source });
  }
  return new GatewayError('backend', `${context.origin}: ${shortMessage(error)}`, { cause: error, source });
}

/** The cause in a few words: node's own (`connect ECONNREFUSED 127.0.0.1:1234`), undici's, or the code. */
export function shortMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  if (code === 'UND_ERR_SOCKET') return `connection closed by the backend (${error.message})`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect timeout';
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return 'ttfb timeout';
  const message = error.message || (typeof code === 'string' ? code : error.name);
  // getaddrinfo errors read `getaddrinfo ENOTFOUND host`: fine as they are; TLS errors get their code.
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}
