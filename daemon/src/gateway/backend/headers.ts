/**
 * Header handling at the backend edge: hop-by-hop headers never cross the gateway, and the
 * backend log line shows only an allow-list of headers and a URL without secrets.
 */

/** RFC 9110 §7.6.1 connection-specific headers, plus `expect` (undici cannot send 100-continue on HTTP/1.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

export type HeaderMap = Readonly<Record<string, string | readonly string[] | undefined>>;
export type OutgoingHeaders = Record<string, string | string[]>;

/** Lower-case copy without hop-by-hop headers, `Proxy-*` headers, and the headers the `Connection` header names. */
export function withoutHopByHop(headers: HeaderMap): OutgoingHeaders {
  const named = connectionTokens(headers);
  const out: OutgoingHeaders = {};
  for (const [rawName, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    if (HOP_BY_HOP.has(name) || name.startsWith('proxy-') || named.has(name)) continue;
    const values = typeof value === 'string' ? [value] : [...value];
    const previous = out[name];
    if (previous === undefined) out[name] = values.length === 1 ? values[0]! : values;
    else out[name] = [...(typeof previous === 'string' ? [previous] : previous), ...values];
  }
  return out;
}

function connectionTokens(headers: HeaderMap): Set<string> {
  const tokens = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'connection' || value === undefined) continue;
    for (const line of typeof value === 'string' ? [value] : value) {
      for (const token of line.split(',')) if (token.trim()) tokens.add(token.trim().toLowerCase());
    }
  }
  return tokens;
}

/** A backend's response headers as the contract wants them: lower case, hop-by-hop dropped, `set-cookie` an array. */
export function responseHeaders(headers: HeaderMap): OutgoingHeaders {
  const out = withoutHopByHop(headers);
  const cookies = out['set-cookie'];
  if (typeof cookies === 'string') out['set-cookie'] = [cookies];
  return out;
}

const LOGGED_REQUEST_HEADERS = ['accept', 'accept-encoding', 'content-length', 'content-type', 'host', 'referer', 'user-agent', 'x-forwarded-for', 'gateway-request-id'];
const LOGGED_RESPONSE_HEADERS = ['cache-control', 'content-encoding', 'content-length', 'content-type', 'location', 'server', 'www-authenticate'];

/** The allow-listed request headers for the log line (never Authorization, Cookie or the like). */
export function loggedRequestHeaders(headers: HeaderMap, extra: readonly string[] = []): Record<string, string> {
  return pick(headers, [...LOGGED_REQUEST_HEADERS, ...extra.map((h) => h.toLowerCase())]);
}

export function loggedResponseHeaders(headers: HeaderMap): Record<string, string> {
  return pick(headers, LOGGED_RESPONSE_HEADERS);
}

function pick(headers: HeaderMap, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (value === undefined || !names.includes(name)) continue;
    out[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}

/** Query parameter names whose values are secrets in the log line. */
const SECRET_PARAM = /(token|secret|passw|pwd|auth|key|sig|code|session|credential)/i;

/** The URL for logs: no user info, secret-looking query values as `***`. */
export function loggableUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  const secret = [...new Set(copy.searchParams.keys())].filter((name) => SECRET_PARAM.test(name));
  // Rewriting the query re-encodes it, so only when there is something to hide.
  for (const name of secret) {
    const count = copy.searchParams.getAll(name).length;
    copy.searchParams.delete(name);
    for (let i = 0; i < count; i++) copy.searchParams.append(name, '***');
  }
  return copy.href;
}
