import { SignJWT } from 'jose';
import { loadOk } from '../../config/testing/config-files.js';
import { compilePlainProxy } from '../plain-proxy.js';

/** The HS256 secret of the `tok` jwt in `backendAndJwt`. */
export const JWT_SECRET = 'a-test-secret-of-enough-length-0123456789';

/** `definitions` entries: backend "b" at `origin`, and jwt "tok" (HS256) with `jwtExtra` lines (e.g. `header = "X-Token"`). */
export function backendAndJwt(origin: string, jwtExtra = ''): string {
  return `  backend "b" {
    origin = "${origin}"
  }
  jwt "tok" {
    signature_algorithm = "HS256"
    key = "${JWT_SECRET}"
    ${jwtExtra}
  }`;
}

/** A token `tok` accepts for an hour. */
export function tokToken(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(JWT_SECRET));
}

/**
 * An api error handler that never answers in these tests (no backend validates against OpenAPI) but
 * reads the proxy's exchange, which a plain route does not record: its route takes the general path.
 */
export const GENERAL_PATH_HANDLER = `error_handler "backend_openapi_validation" {
      response {
        status = 502
        headers = { x-url = backend_requests.default.url }
      }
    }`;

/**
 * A `server` whose `/plain/**` endpoint (with `endpointLines` and a `default` proxy to backend
 * "b" with `proxyLines`) compiles to the plain proxy handler, and whose `/general/**` is the
 * same endpoint inside an api with GENERAL_PATH_HANDLER, which makes it take the general path:
 * tests send both the same requests and compare what they answer and log.
 */
export function plainAndGeneralServer(endpointLines: string, serverLines = '', proxyLines = ''): string {
  const endpoint = (pattern: string) => `endpoint "${pattern}" {
    ${endpointLines}
    proxy {
      backend = "b"
      ${proxyLines}
    }
  }`;
  return `server {
  hosts = ["*:0"]
  ${serverLines}
  ${endpoint('/plain/**')}
  api {
    base_path = "/general"
    ${GENERAL_PATH_HANDLER}
    ${endpoint('/**')}
  }
}`;
}

/**
 * A `server` (with `serverLines`) holding `endpoints` (and `apiLines`) under an api at `/plain`,
 * where a plain proxy endpoint compiles to the plain handler, and again under one at `/general`
 * with GENERAL_PATH_HANDLER, which makes the same endpoints take the general path.
 */
export function plainAndGeneralApis(endpoints: string, options: { apiLines?: string; serverLines?: string } = {}): string {
  const api = (base: string, general: string) => `
  api {
    base_path = "${base}"
    ${options.apiLines ?? ''}
    ${general}
    ${endpoints}
  }`;
  return `
server {
  hosts = ["*:0"]
  ${options.serverLines ?? ''}
  ${api('/plain', '')}
  ${api('/general', GENERAL_PATH_HANDLER)}
}
`;
}

/** `definitions` with backend "b" at `origin`, and jwt "tok" reading `X-Token` with its permissions in the claim `perms`. */
export function permissionDefinitions(origin: string): string {
  return `definitions {
${backendAndJwt(origin, `header = "X-Token"
    beta_permissions_claim = "perms"`)}
}
`;
}

/** Sends each case to `/plain` then `/general` in turn (so both see the same moments) and gives what `seen` made of each. */
export async function sendBoth<C, R>(cases: readonly C[], seen: (prefix: string) => (c: C) => Promise<R>): Promise<{ plain: R[]; general: R[] }> {
  const plain: R[] = [];
  const general: R[] = [];
  for (const c of cases) {
    plain.push(await seen('/plain')(c));
    general.push(await seen('/general')(c));
  }
  return { plain, general };
}

/**
 * True when the endpoint `pattern` of `hcl` compiles to the plain proxy handler: the one under the
 * api whose base path is `base`, else the first api's or the server's holding that pattern.
 */
export async function compilesPlain(hcl: string, pattern: string, base?: string, env: Record<string, string> = {}): Promise<boolean> {
  const cfg = await loadOk({ 'portico.hcl': hcl }, env);
  const server = cfg.servers[0]!;
  const api = server.apis.find((a) => (base === undefined ? a.endpoints.some((e) => e.pattern === pattern) : a.basePath === base)) ?? null;
  const endpoint = (api ? api.endpoints : server.endpoints).find((e) => e.pattern === pattern);
  if (!endpoint) throw new Error(`no endpoint ${pattern}${base === undefined ? '' : ` under ${base}`}`);
  return compilePlainProxy({ config: cfg, server, api, endpoint }) !== null;
}
