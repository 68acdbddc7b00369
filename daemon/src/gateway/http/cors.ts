/**
 * CORS as the peer does it: a block's own `cors` overrides the server's (`disable` turns the
 * inherited one off); the gateway answers preflights itself (204) and decorates actual
 * responses. Access-Control-Allow-Methods only names the requested method when the route
 * allows it.
 */
import type { CorsConfig, ServerConfig } from '../config/model.js';

type Headers = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The cors that applies to a block of `server` whose own cors is `own`. */
export function effectiveCors(server: ServerConfig, own: CorsConfig | null): CorsConfig | null {
  const cors = own ?? server.cors;
  if (!cors || cors.disable || cors.allowedOrigins.length === 0) return null;
  return cors;
}

function header(headers: Headers, name: string): string | undefined {
  const raw = headers[name];
  return Array.isArray(raw) ? raw.join(', ') : (raw as string | undefined);
}

export function isPreflight(method: string, headers: Headers): boolean {
  return method === 'OPTIONS' && !!header(headers, 'origin') && !!header(headers, 'access-control-request-method');
}

function originAllowed(cors: CorsConfig, origin: string): boolean {
  if (cors.allowedOrigins.includes('*')) return true;
  const wanted = origin.toLowerCase();
  return cors.allowedOrigins.some((o) => o.toLowerCase() === wanted);
}

/** Headers for the response to a request with `headers` (preflight or actual); empty when CORS does not apply. */
export function corsHeaders(cors: CorsConfig, method: string, headers: Headers, allowedMethods: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const wildcard = cors.allowedOrigins.includes('*') && !cors.allowCredentials;
  const preflight = isPreflight(method, headers);
  // A preflight answer depends on all three request headers (as the peer's); an actual one on Origin, unless every origin gets the same `*`.
  if (preflight) out.vary = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
  else if (!wildcard) out.vary = 'Origin';
  const origin = header(headers, 'origin');
  if (!origin || !originAllowed(cors, origin)) return out;
  out['access-control-allow-origin'] = wildcard ? '*' : origin;
  if (cors.allowCredentials) out['access-control-allow-credentials'] = 'true';
  if (!preflight) return out;
  const requested = header(headers, 'access-control-request-method')!.trim();
  if (allowedMethods.includes(requested.toUpperCase())) out['access-control-allow-methods'] = requested;
  const requestedHeaders = header(headers, 'access-control-request-headers');
  if (requestedHeaders) out['access-control-allow-headers'] = requestedHeaders;
  if (cors.maxAge !== null) out['access-control-max-age'] = String(Math.floor(cors.maxAge / 1000));
  return out;
}
