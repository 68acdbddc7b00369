import { generateKeyPairSync } from 'node:crypto';
import { jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import type { JwtAlgorithm, SigningProfileConfig } from '../config/model.js';
import { createSigner } from './jwt-sign.js';

const range = { filename: 'x.hcl', start: { line: 1, column: 1, byte: 0 }, end: { line: 1, column: 1, byte: 0 } };
const profile = (algorithm: JwtAlgorithm, key: string, ttl: number | null = 60_000): SigningProfileConfig => ({ label: 'p', range, origin: 'jwt_signing_profile', algorithm, key, ttl, claims: null, headers: { kid: 'k1' } });
const pkcs8 = (k: import('node:crypto').KeyObject): string => k.export({ type: 'pkcs8', format: 'pem' }) as string;

describe('createSigner', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ecs = { ES256: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }), ES384: generateKeyPairSync('ec', { namedCurve: 'secp384r1' }), ES512: generateKeyPairSync('ec', { namedCurve: 'secp521r1' }) };

  it.each(['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'] as const)('signs %s so that jose verifies it', async (alg) => {
    const secret = 'a-secret-that-is-long-enough-for-hs512-0123456789-0123456789-abcd';
    const key = alg.startsWith('HS') ? secret : alg.startsWith('RS') ? pkcs8(rsa.privateKey) : pkcs8(ecs[alg as 'ES256'].privateKey);
    const verifyKey = alg.startsWith('HS') ? new TextEncoder().encode(secret) : alg.startsWith('RS') ? rsa.publicKey : ecs[alg as 'ES256'].publicKey;
    const token = createSigner(profile(alg, key)).sign({ sub: 'x' }, { iss: 'portico', sub: 'default' }, Math.floor(Date.now() / 1000));
    const { payload, protectedHeader } = await jwtVerify(token, verifyKey, { algorithms: [alg] });
    expect(protectedHeader).toEqual({ alg, typ: 'JWT', kid: 'k1' });
    expect(payload).toMatchObject({ sub: 'x', iss: 'portico' });
    expect(payload.exp! - payload.iat!).toBe(60);
  });

  it('lets the given claims win over exp, and leaves exp out without a ttl', () => {
    const signer = createSigner(profile('HS256', 'k', null));
    const decode = (t: string): Record<string, unknown> => JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString());
    expect(decode(signer.sign({}, null, 100))).toEqual({ iat: 100 });
    expect(decode(createSigner(profile('HS256', 'k')).sign({ exp: 5 }, null, 100))).toEqual({ iat: 100, exp: 5 });
  });

  it('refuses keys that cannot sign the algorithm', () => {
    expect(() => createSigner(profile('RS256', pkcs8(ecs.ES256.privateKey)))).toThrow('an RSA private key is needed, got ec');
    expect(() => createSigner(profile('ES384', pkcs8(ecs.ES256.privateKey)))).toThrow('ES384 needs the curve secp384r1, got prime256v1');
    expect(() => createSigner(profile('RS256', rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string))).toThrow(/not a PEM private key/);
  });
});
