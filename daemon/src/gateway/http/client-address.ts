import { isIPv4 } from 'node:net';

const MAPPED = '::ffff:';

/**
 * The client's address as the peer reports it: a listener on every address (`*` hosts) is
 * dual-stack, and Node gives its IPv4 clients as IPv4-mapped IPv6 (`::ffff:10.0.0.7`); the
 * peer, like most servers, names them by their IPv4 address, in X-Forwarded-For and the logs.
 */
export function clientAddress(socket: { readonly remoteAddress?: string | undefined }): string {
  const address = socket.remoteAddress ?? '';
  if (!address.startsWith(MAPPED)) return address;
  const v4 = address.slice(MAPPED.length);
  return isIPv4(v4) ? v4 : address;
}
