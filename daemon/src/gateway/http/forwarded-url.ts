/**
 * The request URL as the client saw it: Host (or X-Forwarded-Host with `xfh`), then the
 * X-Forwarded-* headers `accept_forwarded_url` allows, in the peer's order: proto (drops the
 * port), host (keeps the port unless the forwarded host has one), port (wins over both).
 */
import type { Settings } from '../config/model.js';

type Headers = Readonly<Record<string, string | readonly string[] | undefined>>;

function first(headers: Headers, name: string): string | undefined {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw[0] : (raw as string | undefined);
  if (value === undefined) return undefined;
  // Proxies append: the first entry is the one closest to the client.
  const comma = value.indexOf(',');
  const head = (comma === -1 ? value : value.slice(0, comma)).trim();
  return head === '' ? undefined : head;
}

/** The host the request is for (before `accept_forwarded_url`): X-Forwarded-Host with `xfh`, else Host. */
export function requestHost(settings: Pick<Settings, 'xfh'>, headers: Headers, fallback: string): string {
  if (settings.xfh) {
    const xfh = first(headers, 'x-forwarded-host');
    if (xfh !== undefined && isHostPort(xfh)) return xfh;
  }
  const host = first(headers, 'host');
  return host !== undefined && isHostPort(host) ? host : fallback;
}

/** Lower-case host name of a `host[:port]` (IPv6 brackets kept), for virtual host matching. */
export function hostName(hostPort: string): string {
  return knownHosts.get(hostPort) ?? nameOf(hostPort);
}

function nameOf(hostPort: string): string {
  const name = hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : hostPort.replace(/:\d*$/, '');
  return name.toLowerCase().replace(/\.$/, '');
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._~%!$&'()*+;=-]+)(:\d{1,5})?$/;

/**
 * Host values found valid, with their host names. Requests name a few hosts over and over, and
 * each was checked twice (for the URL and for the server) with a regular expression and then
 * lowered with two more: about 1,500 instructions a request (docs/performance-log.md, "A
 * fifteenth machine"). Bounded in count and in length (a DNS name is at most 253 characters, with a port
 * 259): past KNOWN_HOSTS_MAX values, and for longer ones, the check runs each time, so clients
 * sending made-up hosts hold at most about half a megabyte here.
 */
const knownHosts = new Map<string, string>();
const KNOWN_HOSTS_MAX = 1024;
const KNOWN_HOST_MAX_LENGTH = 259;

function isHostPort(value: string): boolean {
  if (knownHosts.has(value)) return true;
  if (!HOST_PORT.test(value)) return false;
  if (knownHosts.size < KNOWN_HOSTS_MAX && value.length <= KNOWN_HOST_MAX_LENGTH) knownHosts.set(value, nameOf(value));
  return true;
}

/** `scheme` is the connection's: `https` on an https_dev_proxy listener. */
export function requestUrl(settings: Pick<Settings, 'xfh' | 'acceptForwardedUrl'>, headers: Headers, rawPath: string, fallbackHost: string, scheme: 'http' | 'https' = 'http'): URL {
  let protocol: string = scheme;
  let host = requestHost(settings, headers, fallbackHost);
  const accepts = settings.acceptForwardedUrl;
  if (accepts.includes('proto')) {
    const proto = first(headers, 'x-forwarded-proto')?.toLowerCase();
    if (proto === 'http' || proto === 'https') {
      protocol = proto;
      host = stripPort(host);
    }
  }
  if (accepts.includes('host')) {
    const xfh = first(headers, 'x-forwarded-host');
    if (xfh !== undefined && isHostPort(xfh)) {
      const port = portOf(host);
      host = portOf(xfh) === null && port !== null ? `${xfh}:${port}` : xfh;
    }
  }
  if (accepts.includes('port')) {
    const port = first(headers, 'x-forwarded-port');
    if (port !== undefined && /^\d{1,5}$/.test(port) && Number(port) <= 65535) host = `${stripPort(host)}:${port}`;
  }
  // A path that is not origin-form (`*`, absolute-form) is kept as the path only.
  const path = rawPath.startsWith('/') ? rawPath : `/${rawPath.replace(/^[a-z]+:\/\/[^/]*/i, '').replace(/^\/*/, '')}`;
  try {
    return new URL(`${protocol}://${host}${path}`);
  } catch {
    return new URL(`${protocol}://${fallbackHost}${path.replace(/[^\x21-\x7e]/g, encodeURIComponent)}`);
  }
}

function stripPort(hostPort: string): string {
  return hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : hostPort.replace(/:\d*$/, '');
}

function portOf(hostPort: string): string | null {
  const match = /:(\d{1,5})$/.exec(hostPort.startsWith('[') ? hostPort.slice(hostPort.indexOf(']') + 1) : hostPort);
  return match?.[1] ?? null;
}
