/**
 * The only headers a log line ever carries. Anything else (authorization, cookies, API keys,
 * tokens, custom headers that might hold either) is left out, whatever a caller passes.
 */
export const LOGGED_REQUEST_HEADERS: readonly string[] = ['user-agent', 'accept', 'accept-encoding', 'content-type', 'content-length', 'host', 'referer', 'origin', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'gateway-request-id'];

export const LOGGED_RESPONSE_HEADERS: readonly string[] = ['content-type', 'content-length', 'content-encoding', 'location', 'cache-control', 'gateway-error', 'server', 'www-authenticate'];

const ALL = new Set([...LOGGED_REQUEST_HEADERS, ...LOGGED_RESPONSE_HEADERS]);

type HeaderBag = Readonly<Record<string, string | readonly string[] | number | undefined>>;

/** The allow-listed headers of `headers` (names lower-cased, several values joined by ", "). */
export function loggableHeaders(headers: HeaderBag | undefined, allowed: readonly string[] = [...ALL]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const allow = new Set(allowed);
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (!allow.has(name) || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** Applies the allow-list to every `headers` object at the first two levels of a record (request, response, ...). */
export function scrubRecordHeaders<T extends Record<string, unknown>>(record: T): T {
  const out: Record<string, unknown> = { ...record };
  for (const [key, value] of Object.entries(out)) {
    if (key === 'headers' && value && typeof value === 'object') out[key] = loggableHeaders(value as HeaderBag);
    else if (value && typeof value === 'object' && !Array.isArray(value) && 'headers' in value) {
      const inner = value as Record<string, unknown>;
      out[key] = { ...inner, headers: loggableHeaders(inner.headers as HeaderBag) };
    }
  }
  return out as T;
}
