import type { Readable } from 'node:stream';
import { GatewayError } from '../errors/error-types.js';

/** Reads a backend response body to the end (for `backend_responses.<label>.body` and responses not streamed). */
export async function readAll(body: Readable, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of body) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    }
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    const kind = signal.aborted ? 'client_request' : 'backend';
    throw new GatewayError(kind, `reading the backend response body failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return Buffer.concat(chunks);
}

/** Drops a body nobody will read; the abort error it may emit is expected, not a failure. */
export function discardBody(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

/**
 * Lets a body nobody reads (a 204's) run to its end, so the connection is kept. Its error (a
 * backend that announced a length and sent less) is the exchange's, already in the backend
 * line: with no listener it would be thrown as an uncaught 'error' event and end the process.
 */
export function drainBody(body: Readable): void {
  body.on('error', () => undefined);
  body.resume();
}
