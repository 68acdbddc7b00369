/**
 * What to do with a request body still arriving when the answer is ready (a 401 from an access
 * control, a 404, a 405, a 413, a backend that answered early): keep the connection for the
 * client's next request, or end it after this answer. Go's server (the peer's) reads and drops
 * up to 256 KiB of such a rest before it answers and keeps the connection; a longer rest, or one
 * the handler was still reading, ends it. Here:
 *
 * - a body nobody took, with a Content-Length under 256 KiB: kept; the answer goes at once and
 *   Node's server drops the rest as it comes (it does so for any body nobody read);
 * - a chunked body nobody took: up to 256 KiB of it are read and dropped before the answer
 *   (its length is known only at its end), for at most `DROP_WAIT_MS`; kept when it ended;
 * - anything else (a body given to a backend, read in part, longer, or not ended in time):
 *   the answer carries `Connection: close` and the connection ends after it. Left open, it
 *   would wait for a body nobody reads (and hold a graceful stop until the client gave up).
 */
import type { IncomingMessage } from 'node:http';

/** Go's `maxPostHandlerReadBytes`. */
export const DROP_LIMIT_BYTES = 256 * 1024;
/** How long the answer waits for the rest of a chunked body it will drop. */
export const DROP_WAIT_MS = 1000;

/** True when the answer must end the connection; a promise only for a chunked body being dropped. */
export function unreadBodyEndsConnection(req: IncomingMessage): boolean | Promise<boolean> {
  if (req.complete) return false;
  // Someone took the body (a backend request, the body reader): what is left of it is theirs.
  if (req.readableFlowing !== null || req.destroyed) return true;
  const length = req.headers['content-length'];
  if (length !== undefined) return !(Number(length) < DROP_LIMIT_BYTES);
  return dropRest(req);
}

function dropRest(req: IncomingMessage): Promise<boolean> {
  return new Promise((resolve) => {
    let dropped = 0;
    const finish = (ends: boolean): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      if (ends) req.pause();
      resolve(ends);
    };
    const onData = (chunk: Buffer): void => {
      dropped += chunk.length;
      if (dropped > DROP_LIMIT_BYTES) finish(true);
    };
    const onEnd = (): void => finish(false);
    const onClose = (): void => finish(true);
    const timer = setTimeout(() => finish(true), DROP_WAIT_MS);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
  });
}
