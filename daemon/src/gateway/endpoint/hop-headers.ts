import { lowerCaseName } from '../../core/header-name.js';

/** Hop-by-hop headers (RFC 7230 6.1, plus the legacy ones the peer drops): never forwarded either way. */
const HOP_HEADERS: ReadonlySet<string> = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

type In = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Headers the gateway (or a proxy in front, by convention) sets for the backend. A client's
 * spelling of one with underscores is left out: CGI-style backends (WSGI, Rack, PHP) read
 * `X_Forwarded_For` as `X-Forwarded-For` (both are HTTP_X_FORWARDED_FOR there), as nginx drops
 * such headers by default.
 */
const GATEWAY_SET: ReadonlySet<string> = new Set(['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-forwarded-prefix', 'x-real-ip']);

/** A copy without hop-by-hop headers and those the Connection header lists; `drop` names more to leave out. */
export function endToEndHeaders(headers: In, drop: readonly string[] = []): Record<string, string | string[]> {
  const connection = headers['connection'];
  const listed = connection === undefined ? null : (typeof connection === 'string' ? [connection] : connection).flatMap((v) => v.split(',').map((s) => s.trim().toLowerCase()));
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = lowerCaseName(name);
    if ((drop.length > 0 && drop.includes(lower)) || (listed !== null && listed.includes(lower))) continue;
    if (HOP_HEADERS.has(lower) && !(lower === 'te' && value === 'trailers')) continue;
    if (lower.includes('_') && GATEWAY_SET.has(lower.replaceAll('_', '-'))) continue;
    out[lower] = typeof value === 'string' ? value : [...value];
  }
  return out;
}

/**
 * A copy of headers that are end-to-end already (a backend's answer: the exchange dropped the
 * hop-by-hop ones), made key by key from an empty object: its shapes are V8's shared
 * transitions from `{}`. A spread's copy took a hidden class of its own, and the modifiers'
 * first new header then made one more for every request: the runtime's migrations, a new
 * enumeration cache and inline-cache misses after it, about 19k instructions a request
 * (docs/performance-log.md, "A twenty-seventh machine"). Values are shared: header lists are
 * replaced, never changed in place.
 */
export function copyHeaders<T extends string | readonly string[]>(headers: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const name in headers) out[name] = headers[name]!;
  return out;
}
