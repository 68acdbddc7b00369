import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * `Expect: 100-continue`: the interim 100 goes out when something first reads the request's
 * body (the proxy streaming it to a backend, an expression reading `request.body`, an upload),
 * not when the request arrives, as the peer's Go server does. A request its access controls
 * refuse, or that a response block answers, gets its final status while the client still holds
 * its body; Node then closes the connection (the body was neither asked for nor read). Without
 * this, Node sends the 100 at once and an anonymous client uploads all of it before its 401.
 *
 * Every way of reading a Readable (`read()`, `data` listeners, `pipe`, async iteration) asks
 * for data through `_read`, so the first call is the first read; it is put back at once. Once
 * the final status is out (Node reads what is left to discard it) no 100 is sent.
 */
export function continueOnFirstRead(req: IncomingMessage, res: ServerResponse): void {
  const read = req._read;
  req._read = function firstRead(this: IncomingMessage, size: number): void {
    req._read = read;
    if (!res.headersSent && !res.destroyed) res.writeContinue();
    read.call(this, size);
  };
}
