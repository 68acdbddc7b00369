import { createPublicKey, type KeyObject } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import type { JwtAlgorithm, JwtConfig } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import type { JwksCache } from './jwks-cache.js';

export interface JwtVerifier {
  /** The payload of a token whose signature and claims check out; rejects with a jwt error type. */
  verify(token: string, claims: Readonly<Record<string, unknown>> | null): Promise<Record<string, unknown>>;
}

/** Verified tokens remembered at most this long, and this many (oldest forgotten first). */
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX = 10_000;
const LEEWAY_S = 1;

interface Verified {
  readonly payload: Readonly<Record<string, unknown>>;
  /** Epoch ms until which the signature check stands. */
  readonly until: number;
  readonly keySet: number;
}

/** Key sets sign with these; HS* never comes from a key set, and `none` never at all. */
const JWKS_ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'];

/** Verification with jose: the configured algorithm only, 1 s leeway (the peer's), then the claims checks. */
export function createJwtVerifier(config: JwtConfig, jwks: JwksCache | null): JwtVerifier {
  const algorithms = jwks ? [...JWKS_ALGORITHMS] : config.algorithm ? [config.algorithm] : [];
  const fixedKey = jwks ? null : fixedVerificationKey(config);
  // Bearer tokens are sent again and again: a token whose signature checked out is kept
  // (by its exact text, signature included) for a minute, or until the key set changes or
  // stops being fresh (jwks_ttl: then the token is checked against the set fetched again, or
  // the stale one within jwks_max_stale); its time claims and the configured claims are still
  // checked on every request.
  const verified = new Map<string, Verified>();
  const signatureCheck = async (token: string): Promise<Readonly<Record<string, unknown>>> => {
    const now = Date.now();
    const keySet = jwks?.version ?? 0;
    const known = verified.get(token);
    if (known !== undefined && known.until > now && known.keySet === keySet) {
      checkTimes(known.payload, now / 1000);
      return known.payload;
    }
    let payload: Record<string, unknown>;
    try {
      if (fixedKey !== null) payload = (await jwtVerify(token, fixedKey, { algorithms, clockTolerance: LEEWAY_S })).payload;
      else {
        const header = safeHeader(token);
        payload = (await jwtVerify(token, () => jwks!.key(header.kid, header.alg ?? ''), { algorithms, clockTolerance: LEEWAY_S })).payload;
      }
    } catch (error) {
      throw asJwtError(error);
    }
    Object.freeze(payload);
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value as string);
    const until = jwks ? Math.min(now + VERIFIED_TTL_MS, jwks.freshUntil()) : now + VERIFIED_TTL_MS;
    if (until > now) verified.set(token, { payload, until, keySet: jwks?.version ?? keySet });
    return payload;
  };
  return {
    async verify(token, claims) {
      const payload = await signatureCheck(token);
      if (typeof claims?.['iss'] === 'string' && payload['iss'] !== claims['iss']) throw new GatewayError('jwt_token_invalid', 'unexpected "iss" claim value');
      if (typeof claims?.['aud'] === 'string' && !audienceHas(payload['aud'], claims['aud'])) throw new GatewayError('jwt_token_invalid', 'unexpected "aud" claim value');
      for (const name of config.requiredClaims) {
        if (!Object.hasOwn(payload, name)) throw new GatewayError('jwt_token_invalid', `required claim is missing: ${name}`);
      }
      for (const [name, expected] of Object.entries(claims ?? {})) {
        if ((name === 'iss' || name === 'aud') && typeof expected === 'string') continue;
        if (!Object.hasOwn(payload, name)) throw new GatewayError('jwt_token_invalid', `required claim is missing: ${name}`);
        if (!sameClaim(payload[name], expected)) throw new GatewayError('jwt_token_invalid', `unexpected value for claim ${name}`);
      }
      return payload as Record<string, unknown>;
    },
  };
}

/** exp and nbf against the clock (jose checked them when the signature was; a remembered token is checked again). */
function checkTimes(payload: Readonly<Record<string, unknown>>, nowSeconds: number): void {
  const exp = payload['exp'];
  if (typeof exp === 'number' && nowSeconds > exp + LEEWAY_S) throw new GatewayError('jwt_token_expired', 'token expired: "exp" claim timestamp check failed');
  const nbf = payload['nbf'];
  if (typeof nbf === 'number' && nowSeconds + LEEWAY_S < nbf) throw new GatewayError('jwt_token_invalid', 'token invalid: "nbf" claim timestamp check failed');
}

function audienceHas(aud: unknown, wanted: string): boolean {
  return aud === wanted || (Array.isArray(aud) && aud.includes(wanted));
}

function fixedVerificationKey(config: JwtConfig): KeyObject | Uint8Array {
  if (config.key === null || config.algorithm === null) throw new Error(`jwt "${config.label}" has neither a key nor a key set`);
  if (config.algorithm.startsWith('HS')) return new TextEncoder().encode(config.key);
  return createPublicKey(config.key);
}

function safeHeader(token: string): { kid?: string; alg?: string } {
  try {
    return decodeProtectedHeader(token);
  } catch {
    throw new GatewayError('jwt_token_invalid', 'the token is not a compact JWS');
  }
}

function sameClaim(actual: unknown, expected: unknown): boolean {
  if (typeof actual === 'number' && typeof expected === 'number') return actual === expected;
  return isDeepStrictEqual(actual, expected);
}

function asJwtError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ERR_JWT_EXPIRED') return new GatewayError('jwt_token_expired', `token expired: ${message}`, { cause: error });
  return new GatewayError('jwt_token_invalid', `token invalid: ${message}`, { cause: error });
}
