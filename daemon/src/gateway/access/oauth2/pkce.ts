import { createHash } from 'node:crypto';

/** BASE64URL(SHA256(value)): the S256 code challenge of RFC 7636, also the state and nonce sent for a verifier. */
export function s256(value: string): string {
  return createHash('sha256').update(value, 'ascii').digest('base64url');
}
