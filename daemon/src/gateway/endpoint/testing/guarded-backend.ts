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
