/**
 * The parts of an HTTP message as expressions read them (spec "Variables"): shared by
 * `request.*`, `backend_requests.<label>.*` and `backend_responses.<label>.*`.
 */

type HeaderRecord = Readonly<Record<string, string | readonly string[] | undefined>>;

/** One string per header (several values joined with ", ", as they arrive on one line); lower-case names. */
export function headerMap(headers: HeaderRecord): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out.set(name.toLowerCase(), typeof value === 'string' ? value : value.join(name.toLowerCase() === 'cookie' ? '; ' : ', '));
  }
  return out;
}

/** `Cookie: a=1; b=2` → a → 1, b → 2; the last of a repeated name wins. */
export function requestCookies(header: string | readonly string[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const lines = header === undefined ? [] : typeof header === 'string' ? [header] : header;
  for (const line of lines) {
    for (const part of line.split(';')) {
      const eq = part.indexOf('=');
      if (eq <= 0) continue;
      const name = part.slice(0, eq).trim();
      let value = part.slice(eq + 1).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      if (name !== '') out.set(name, value);
    }
  }
  return out;
}

/** `Set-Cookie: a=1; Path=/` lines → a → 1; the last of a repeated name wins. */
export function responseCookies(header: string | readonly string[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const lines = header === undefined ? [] : typeof header === 'string' ? [header] : header;
  for (const line of lines) {
    const pair = line.split(';')[0] ?? '';
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    out.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return out;
}

/** Query parameters as lists of values, in order. */
export function queryMap(params: URLSearchParams): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, value] of params) {
    const list = out.get(name);
    if (list) list.push(value);
    else out.set(name, [value]);
  }
  return out;
}

/** The media type without parameters, lower case: `application/json; charset=utf-8` → `application/json`. */
export function mediaType(contentType: string | readonly string[] | undefined): string {
  const value = typeof contentType === 'string' ? contentType : (contentType?.[0] ?? '');
  return (value.split(';')[0] ?? '').trim().toLowerCase();
}

export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** A POST with an urlencoded body: the request form modifiers rewrite, and whose `_method` field frameworks honour. */
export function isFormPost(method: string, contentType: string | readonly string[] | undefined): boolean {
  return method === 'POST' && mediaType(contentType) === FORM_MEDIA_TYPE;
}

/** `json_body`: the decoded body for JSON media types; null otherwise or when it does not parse (as the peer). */
export function jsonBody(contentType: string | readonly string[] | undefined, body: Buffer | null): unknown {
  if (body === null || body.length === 0 || !isJsonMediaType(mediaType(contentType))) return null;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

/** `form_body`: parameters of an urlencoded body as lists; empty for other media types. */
export function formBody(contentType: string | readonly string[] | undefined, body: Buffer | null): Map<string, string[]> {
  if (body === null || mediaType(contentType) !== FORM_MEDIA_TYPE) return new Map();
  return queryMap(new URLSearchParams(body.toString('utf8')));
}

/** The parts of a URL a message's variable has, in its order. */
export const URL_PARTS = ['url', 'origin', 'protocol', 'host', 'port', 'path'] as const;
export type UrlPart = (typeof URL_PARTS)[number];

/** One of url, origin, protocol, host, port (integer), path of a URL. */
export function urlPart(url: URL, part: UrlPart): string | number {
  switch (part) {
    case 'url':
      return url.href;
    case 'origin':
      return url.origin;
    case 'protocol':
      return schemeOf(url);
    case 'host':
      return url.hostname;
    case 'port':
      return url.port !== '' ? Number(url.port) : schemeOf(url) === 'https' ? 443 : 80;
    case 'path':
      return url.pathname;
  }
}

function schemeOf(url: URL): string {
  return url.protocol.replace(/:$/, '');
}
