import { isIPv4 } from 'node:net';

const MAPPED = '::ffff:';

/**
 * The client's address as the peer reports it: a listener on every address (`*` hosts) is
 * dual-stack, and Node gives its IPv4 clients as IPv4-mapped IPv6 (`::ffff:10.0.0.7`); the
 * peer, like most servers, names them by their IPv4 address, in X-Forwarded-For and the logs.
 */
export function clientAddress(socket: { readonly remoteAddress?: string | undefined }): string {
  return unmapped(socket.remoteAddress ?? '');
}

/**
 * `address:port` a connection came in on, the host of a request that names none: an IPv4
 * client of a dual-stack listener reached an IPv4 address (`127.0.0.1:8080`, not
 * `[::ffff:7f00:1]:8080` as a URL would write the mapped form).
 */
export function localHost(socket: { readonly localAddress?: string | undefined; readonly localPort?: number | undefined }, port: number): string {
  const address = socket.localAddress === undefined ? 'localhost' : unmapped(socket.localAddress);
  return `${address.includes(':') ? `[${address}]` : address}:${socket.localPort ?? port}`;
}

function unmapped(address: string): string {
  if (!address.startsWith(MAPPED)) return address;
  const v4 = address.slice(MAPPED.length);
  return isIPv4(v4) ? v4 : address;
}
