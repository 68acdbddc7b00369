import { createPublicKey, type KeyObject } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { decodeProtectedHeader, jwtVerify, type JWTVerifyOptions } from 'jose';
import type { JwtAlgorithm, JwtConfig } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import type { JwksCache } from './jwks-cache.js';

export interface JwtVerifier {
  /** The payload of a token whose signature and claims check out; rejects with a jwt error type. */
  verify(token: string, claims: Readonly<Record<string, unknown>> | null): Promise<Record<string, unknown>>;
}

/** Key sets sign with these; HS* never comes from a key set, and `none` never at all. */
const JWKS_ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'];

/** Verification with jose: the configured algorithm only, 1 s leeway (the peer's), then the claims checks. */
export function createJwtVerifier(config: JwtConfig, jwks: JwksCache | null): JwtVerifier {
  const algorithms = jwks ? [...JWKS_ALGORITHMS] : config.algorithm ? [config.algorithm] : [];
  const fixedKey = jwks ? null : fixedVerificationKey(config);
  return {
    async verify(token, claims) {
      const options: JWTVerifyOptions = { algorithms, clockTolerance: 1 };
      if (typeof claims?.['iss'] === 'string') options.issuer = claims['iss'];
      if (typeof claims?.['aud'] === 'string') options.audience = claims['aud'];
      let payload: Record<string, unknown>;
      try {
        if (fixedKey !== null) payload = (await jwtVerify(token, fixedKey, options)).payload;
        else {
          const header = safeHeader(token);
          payload = (await jwtVerify(token, () => jwks!.key(header.kid, header.alg ?? ''), options)).payload;
        }
      } catch (error) {
        throw asJwtError(error);
      }
      for (const name of config.requiredClaims) {
        if (!(name in payload)) throw new GatewayError('jwt_token_invalid', `required claim is missing: ${name}`);
      }
      for (const [name, expected] of Object.entries(claims ?? {})) {
        if ((name === 'iss' || name === 'aud') && typeof expected === 'string') continue;
        if (!(name in payload)) throw new GatewayError('jwt_token_invalid', `required claim is missing: ${name}`);
        if (!sameClaim(payload[name], expected)) throw new GatewayError('jwt_token_invalid', `unexpected value for claim ${name}`);
      }
      return payload;
    },
  };
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
