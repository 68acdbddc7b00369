import { SignJWT } from 'jose';

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
 * A `server` whose `/plain/**` endpoint (with `endpointLines` and a `default` proxy to backend
 * "b" with `proxyLines`) compiles to the plain proxy handler, and whose `/general/**` is the
 * same endpoint inside an api with an unrelated error handler (for a timeout), which makes it
 * take the general path: tests send both the same requests and compare what they answer and log.
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
    error_handler "backend_timeout" {
      response {
        status = 504
      }
    }
    ${endpoint('/**')}
  }
}`;
}
