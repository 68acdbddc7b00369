/**
 * Header handling at the backend edge: hop-by-hop headers never cross the gateway, and the
 * backend log line shows only an allow-list of headers and a URL without secrets.
 */
import { util } from 'undici';
import { lowerCaseName } from '../../core/header-name.js';
import { LOGGED_REQUEST_HEADERS, LOGGED_RESPONSE_HEADERS } from '../logs/header-allow-list.js';

const { headerNameToString } = util;

/** RFC 9110 §7.6.1 connection-specific headers, plus `expect` (undici cannot send 100-continue on HTTP/1.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

export type HeaderMap = Readonly<Record<string, string | readonly string[] | undefined>>;
export type OutgoingHeaders = Record<string, string | string[]>;

/**
 * Lower-case headers without hop-by-hop headers, `Proxy-*` headers, and the headers the
 * `Connection` header names: `headers` itself when it is already so (a proxy route's headers,
 * made end-to-end before they got here; the exchange only reads them), else a copy.
 */
export function withoutHopByHop(headers: HeaderMap): OutgoingHeaders {
  if (isEndToEnd(headers)) return headers as OutgoingHeaders;
  const named = connectionTokens(headers);
  const out: OutgoingHeaders = {};
  for (const rawName in headers) {
    const value = headers[rawName];
    if (value === undefined) continue;
    const name = lowerCaseName(rawName);
    if (HOP_BY_HOP.has(name) || name.startsWith('proxy-') || (named !== null && named.has(name))) continue;
    const previous = out[name];
    if (previous === undefined) out[name] = typeof value === 'string' ? value : value.length === 1 ? value[0]! : [...value];
    else out[name] = [...(typeof previous === 'string' ? [previous] : previous), ...(typeof value === 'string' ? [value] : value)];
  }
  return out;
}

/** Every value a string, every name lower case and none that withoutHopByHop would drop (there is no `Connection` header). */
function isEndToEnd(headers: HeaderMap): boolean {
  for (const name in headers) {
    if (typeof headers[name] !== 'string' || HOP_BY_HOP.has(name) || name.startsWith('proxy-') || lowerCaseName(name) !== name) return false;
  }
  return true;
}

/** The header names the `Connection` header lists, or null when there is none. */
function connectionTokens(headers: HeaderMap): Set<string> | null {
  let tokens: Set<string> | null = null;
  for (const name in headers) {
    // The length first: most names are not "connection" in any case.
    if (name.length !== 10) continue;
    const value = headers[name];
    if (value === undefined || name.toLowerCase() !== 'connection') continue;
    tokens ??= new Set<string>();
    for (const line of typeof value === 'string' ? [value] : value) addTokens(tokens, line);
  }
  return tokens;
}

/** Adds the lower-case names a `Connection` header line lists to `tokens`. */
function addTokens(tokens: Set<string>, line: string): void {
  for (const token of line.split(',')) {
    const name = token.trim();
    if (name) tokens.add(name.toLowerCase());
  }
}

/** Buffer's own latin1 decoder: `toString('latin1')` first works out the encoding from its name, for every value. */
interface LatinSliceable extends Buffer {
  latin1Slice(start: number, end: number): string;
}

const latin1 = (bytes: Buffer): string => (bytes as LatinSliceable).latin1Slice(0, bytes.length);

/**
 * A backend's response headers as the contract wants them, from undici's raw list (name, value,
 * name, value... as Buffers): lower case, hop-by-hop dropped, repeated names an array and
 * `set-cookie` always one, values read as latin1 (as undici's own parseHeaders reads them). One
 * pass over the list instead of undici building an object and a second one copying it. A header
 * named `__proto__` is dropped: it is no real header, and as a key it would reach the prototype.
 */
export function rawResponseHeaders(raw: readonly Buffer[]): OutgoingHeaders {
  const names: string[] = new Array<string>(raw.length >> 1);
  let named: Set<string> | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = headerNameToString(raw[i]!);
    names[i >> 1] = name;
    if (name !== 'connection') continue;
    const line = latin1(raw[i + 1]!);
    // `keep-alive`, as most backends send it, names only a header that is dropped anyway.
    if (line !== 'keep-alive') addTokens((named ??= new Set<string>()), line);
  }
  const out: OutgoingHeaders = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = names[i >> 1]!;
    if (HOP_BY_HOP.has(name) || name.startsWith('proxy-') || (named !== null && named.has(name)) || name === '__proto__') continue;
    const value = latin1(raw[i + 1]!);
    const previous = out[name];
    if (previous === undefined) out[name] = name === 'set-cookie' ? [value] : value;
    else if (typeof previous === 'string') out[name] = [previous, value];
    else previous.push(value);
  }
  return out;
}

// One allow-list for the access and the backend lines (logs/header-allow-list.ts).

const LOGGED_REQUEST_SET: ReadonlySet<string> = new Set(LOGGED_REQUEST_HEADERS);
const LOGGED_RESPONSE_SET: ReadonlySet<string> = new Set(LOGGED_RESPONSE_HEADERS);

/** The allow-listed request headers for the log line (never Authorization, Cookie or the like). */
export function loggedRequestHeaders(headers: HeaderMap, extra: readonly string[] = []): Record<string, string> {
  return pick(headers, extra.length === 0 ? LOGGED_REQUEST_SET : new Set([...LOGGED_REQUEST_HEADERS, ...extra.map((h) => h.toLowerCase())]));
}

export function loggedResponseHeaders(headers: HeaderMap): Record<string, string> {
  return pick(headers, LOGGED_RESPONSE_SET);
}

function pick(headers: HeaderMap, names: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawName in headers) {
    const value = headers[rawName];
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    if (!names.has(name)) continue;
    out[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}

export { loggableUrl } from '../../core/loggable-url.js';
