import { createHmac, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { JwtAlgorithm, SigningProfileConfig } from '../config/model.js';

export interface JwtSigner {
  readonly label: string;
  /** A compact JWS; `defaults` first, then iat and exp, then `claims` (which win). */
  sign(claims: Readonly<Record<string, unknown>>, defaults: Readonly<Record<string, unknown>> | null, nowSeconds: number): string;
}

const HASHES: Readonly<Record<JwtAlgorithm, string>> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512', RS256: 'sha256', RS384: 'sha384', RS512: 'sha512', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };
const CURVES: Readonly<Record<string, string>> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

/**
 * A synchronous signer (it runs inside HCL functions, which are synchronous): node:crypto
 * with the key parsed once. Throws when the key cannot sign with the algorithm.
 */
export function createSigner(profile: SigningProfileConfig): JwtSigner {
  const { algorithm } = profile;
  const hash = HASHES[algorithm];
  let signBytes: (data: Buffer) => Buffer;
  if (algorithm.startsWith('HS')) {
    const secret = Buffer.from(profile.key, 'utf8');
    if (secret.length === 0) throw new Error('the secret is empty');
    signBytes = (data) => createHmac(hash, secret).update(data).digest();
  } else {
    const key = privateKey(profile.key);
    const type = key.asymmetricKeyType;
    if (algorithm.startsWith('RS') && type !== 'rsa') throw new Error(`an RSA private key is needed, got ${type ?? 'an unknown key type'}`);
    if (algorithm.startsWith('ES')) {
      if (type !== 'ec') throw new Error(`an EC private key is needed, got ${type ?? 'an unknown key type'}`);
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve !== CURVES[algorithm]) throw new Error(`${algorithm} needs the curve ${CURVES[algorithm]}, got ${curve ?? 'unknown'}`);
    }
    const dsaEncoding = algorithm.startsWith('ES') ? 'ieee-p1363' : undefined;
    signBytes = (data) => sign(hash, data, dsaEncoding ? { key, dsaEncoding } : key);
  }
  const header = b64json({ ...profile.headers, alg: algorithm, typ: 'JWT' });
  return {
    label: profile.label,
    sign(claims, defaults, nowSeconds) {
      const payload: Record<string, unknown> = { ...(defaults ?? {}), iat: nowSeconds };
      if (profile.ttl !== null) payload['exp'] = nowSeconds + Math.floor(profile.ttl / 1000);
      Object.assign(payload, claims);
      const input = `${header}.${b64json(payload)}`;
      return `${input}.${signBytes(Buffer.from(input)).toString('base64url')}`;
    },
  };
}

function privateKey(pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch (error) {
    throw new Error(`not a PEM private key (PKCS#8, PKCS#1 or SEC1): ${error instanceof Error ? error.message : String(error)}`);
  }
}

function b64json(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
