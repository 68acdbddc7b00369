/**
 * The length a streamed response body came with, kept on the stream where it is made (a
 * backend's Content-Length, a file's size), so the one writing the answer can put it back
 * should a header modifier have changed it: a Content-Length other than the bytes that follow
 * would let the client read the rest as the next answer on its connection.
 */
import type { Readable } from 'node:stream';

const LENGTH: unique symbol = Symbol('portico.bodyLength');

type Measured = Readable & { [LENGTH]?: string | null };

/** `length`: the Content-Length the body was made with, or null when it has none (it is sent chunked). */
export function declareBodyLength(body: Readable, length: string | null): void {
  (body as Measured)[LENGTH] = length;
}

/** The body's own length as declared where it was made; undefined when nobody declared one. */
export function declaredBodyLength(body: Readable): string | null | undefined {
  return (body as Measured)[LENGTH];
}
