import type { Readable } from 'node:stream';
import { GatewayError } from '../errors/error-types.js';

/**
 * Reads the client body into memory, at most `limit` bytes (`request_body_limit`): a
 * larger Content-Length fails before reading, a longer body as soon as it passes the limit.
 * The rest is left unread, so the 413 still reaches the client; whether its connection stays
 * depends on that rest (http/unread-body.ts).
 */
export function readClientBody(incoming: Readable, contentLength: string | undefined, limit: number, signal: AbortSignal): Promise<Buffer> {
  const declared = contentLength === undefined ? NaN : Number(contentLength);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit, `its Content-Length is ${declared} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > limit) {
        cleanup();
        incoming.pause();
        reject(tooLarge(limit, `it is longer than that`));
        return;
      }
      chunks.push(buf);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(new GatewayError('client_request', `reading the request body failed: ${error.message}`, { cause: error }));
    };
    const onAbort = (): void => {
      cleanup();
      reject(new GatewayError('client_request', 'the client went away while sending the request body'));
    };
    if (signal.aborted) return onAbort();
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
    incoming.resume();
  });
}

function tooLarge(limit: number, why: string): GatewayError {
  return new GatewayError('request_body_too_large', `the request body exceeds the endpoint's request_body_limit of ${limit} bytes: ${why}`);
}

/** Whether the client request carries a body at all (a Content-Length above 0, or chunked). */
export function hasClientBody(headers: Readonly<Record<string, string | readonly string[] | undefined>>): boolean {
  const length = headers['content-length'];
  if (typeof length === 'string') return Number(length) > 0;
  return headers['transfer-encoding'] !== undefined;
}
