import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { PorticoError } from '../core/errors.js';

/** Loopback, private, link-local, metadata, unspecified, multicast and other special ranges. */
const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');
}

/** True when a callback may not connect to `address` (an IP literal). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return FORBIDDEN.check(mapped[1]!, 'ipv4');
    return FORBIDDEN.check(address, 'ipv6');
  }
  return true;
}

/** URL host without IPv6 brackets, lower case. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/**
 * Refusal reason for a target known without DNS (an IP literal or localhost), else null.
 * Names resolve at delivery time, where `guardedLookup` checks every address.
 */
export function literalTargetRefusal(url: URL, allowHosts: ReadonlySet<string>): string | null {
  const host = hostOf(url);
  if (allowHosts.has(host)) return null;
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback name; list it in SERVICE_CALLBACK_ALLOW_HOSTS to allow it`;
  if (isIP(host) && isForbiddenAddress(host)) return `${host} is a loopback, private, link-local or metadata address; list it in SERVICE_CALLBACK_ALLOW_HOSTS to allow it`;
  return null;
}

export class ForbiddenAddressError extends PorticoError {
  override name = 'ForbiddenAddressError';
  constructor(message: string) {
    super('ERR_CALLBACK_FORBIDDEN_ADDRESS', message, { category: 'forbidden' });
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the TLS connect of callbacks: resolves, and fails when any address is
 * forbidden, unless the host is allowed. Checking at connect time defeats DNS rebinding.
 */
export function guardedLookup(allowHosts: ReadonlySet<string>) {
  return function callbackLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
    const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    dnsLookup(host, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      if (!allowHosts.has(host)) {
        const bad = list.find((a) => isForbiddenAddress(a.address));
        if (bad) {
          return callback(new ForbiddenAddressError(`refused: ${host} resolves to ${bad.address}, a loopback, private, link-local or metadata address (SERVICE_CALLBACK_ALLOW_HOSTS)`), []);
        }
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
