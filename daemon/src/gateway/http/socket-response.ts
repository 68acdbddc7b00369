import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * A response written straight to a socket Node handed over with its request (an upgrade's or a
 * CONNECT's, which Node's server no longer owns): never kept alive, the socket ends after it.
 * The socket's errors are the caller's from here on; they destroy it.
 */
export function responseOnSocket(req: IncomingMessage, socket: Duplex): ServerResponse {
  socket.on('error', () => socket.destroy());
  const response = new ServerResponse(req);
  response.shouldKeepAlive = false;
  response.assignSocket(socket as Socket);
  response.once('finish', () => socket.end());
  return response;
}
