import { posix } from 'node:path';
import type { BackendConfig } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import { evalOptional } from '../eval/eval-dyn.js';
import { isDotSegment } from '../http/request-path.js';
import type { EvalScope } from '../eval/request-scope.js';

export interface UpstreamUrlInput {
  readonly backend: BackendConfig;
  /** The block's evaluated `url`, or null. */
  readonly url: string | null;
  /** Proxy: the client's URL (its path and query are forwarded). Request blocks: null. */
  readonly client: URL | null;
  /** What the endpoint's `/**` matched, or null. */
  readonly wildcard: string | null;
  readonly scope: EvalScope;
  /** The block, for messages. */
  readonly block: string;
}

/**
 * The backend URL, as the peer builds it: the backend's origin (or the url's, which must
 * equal it), the client path (proxy) or `/` (request), replaced by the url's path, then by
 * the backend's `path` (its `/**` taking the wildcard match), then prefixed by `path_prefix`.
 * A proxy keeps the client query; a url's own query parameters are set over it.
 */
export function upstreamUrl(input: UpstreamUrlInput): URL {
  const { backend, client, scope } = input;
  let origin = backend.origin;
  let path = client ? client.pathname : '/';
  // The client's query goes on as it came (as the peer: `%20`, `~` and a bare `flag` stay as
  // they are); a url's parameters are set over it, the client's other pairs kept as written.
  let search = client ? client.search : '';
  // The parsed url, when there is one, becomes the result (its origin is the one sent to).
  let given: URL | null = null;
  if (input.url !== null) {
    given = parseUrl(input.url, origin, input.block);
    if (/^[a-z][a-z0-9+.-]*:/i.test(input.url)) {
      if (given.protocol !== 'http:' && given.protocol !== 'https:') throw new GatewayError('configuration', `${input.block}: url ${JSON.stringify(input.url)} must use http or https`);
      if (origin !== null && given.origin !== originOf(origin)) {
        throw new GatewayError('configuration', `${input.block}: the host of url (${given.origin}) must equal the origin of backend "${backend.name}" (${origin})`);
      }
      origin = given.origin;
    }
    path = withWildcard(given.pathname, input.wildcard);
    if (given.search !== '') search = search === '' ? given.search : setOver(search, given);
  }
  if (origin === null) throw new GatewayError('configuration', `${input.block}: backend "${backend.name}" has no origin and the block gives no absolute url`);
  const backendPath = evalOptional(backend.path, scope, { name: 'path', type: 'string' });
  if (backendPath !== null && backendPath !== '') path = withWildcard(backendPath, input.wildcard);
  const prefix = evalOptional(backend.pathPrefix, scope, { name: 'path_prefix', type: 'string' });
  if (prefix !== null && prefix !== '') path = `${prefix.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  let out: URL;
  if (given !== null) {
    // Only the origin, path and query are sent: no credentials or fragment the url held.
    out = given;
    if (out.username !== '') out.username = '';
    if (out.password !== '') out.password = '';
    if (out.hash !== '') out.hash = '';
    if (path !== out.pathname) out.pathname = path.startsWith('/') ? path : `/${path}`;
  } else if (path === client?.pathname) {
    // The client's path and query as they are (parsed already, so no `#` or dot segment in them) go in with the origin in one parse.
    return new URL(`${origin}${path}${search}`);
  } else {
    out = new URL(origin);
    out.pathname = path.startsWith('/') ? path : `/${path}`;
  }
  if (out.search !== search) out.search = search;
  return out;
}

/** The client's query (`?a=1&b=2`) with the url's parameters set over it: its pairs of other names kept as written, the url's appended. */
function setOver(search: string, given: URL): string {
  const names = new Set(given.searchParams.keys());
  const kept = search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !names.has(pairName(pair)));
  return `?${[...kept, given.search.slice(1)].join('&')}`;
}

/** A query pair's name, decoded as URLSearchParams decodes the whole query (`+` a space, bad escapes kept, a `?` in it kept). */
function pairName(pair: string): string {
  // After the `&` the constructor strips no leading `?`, as it would not from a pair in the middle of a query.
  for (const name of new URLSearchParams(`&${pair}`).keys()) return name;
  return '';
}

/** A backend's origin as URL#origin gives it (origins are normalised at load; this is the check's own). */
const origins = new Map<string, string>();
function originOf(origin: string): string {
  let normal = origins.get(origin);
  if (normal === undefined) {
    normal = new URL(origin).origin;
    if (origins.size > 1024) origins.clear();
    origins.set(origin, normal);
  }
  return normal;
}

function parseUrl(url: string, origin: string | null, block: string): URL {
  try {
    return new URL(url, origin ?? 'http://relative.invalid');
  } catch {
    throw new GatewayError('configuration', `${block}: url ${JSON.stringify(url)} is not a valid URL`);
  }
}

/** `/api/**` with wildcard `a/b` → `/api/a/b` (the peer's path.Join); without a match → `/api/`. */
function withWildcard(path: string, wildcard: string | null): string {
  if (!path.endsWith('/**')) return path;
  const base = path.slice(0, -2);
  if (wildcard === null || wildcard === '') return base;
  // The front refuses dot segments; should one ever get here, the join below must not climb out of the base.
  if (wildcard.split('/').some(isDotSegment)) throw new GatewayError('client_request', `the path below the route's /** contains a dot segment: ${JSON.stringify(wildcard)}`);
  const joined = posix.join(base, wildcard);
  return wildcard.endsWith('/') && !joined.endsWith('/') ? `${joined}/` : joined;
}
