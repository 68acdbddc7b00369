import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/error-types.js';
import { JwksCache } from './jwks-cache.js';

const key1 = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
const key2 = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey;

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((c) => c()));

/** A real JWKS endpoint on loopback: the test sets what it answers and counts the requests. */
async function idp(): Promise<{ fetch: (signal: AbortSignal) => Promise<unknown>; requests: () => number; answer: (status: number, body: unknown) => void }> {
  let status = 200;
  let body: unknown = { keys: [] };
  let requests = 0;
  const server = createServer((_req, res) => {
    requests += 1;
    setTimeout(() => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    }, 20);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  return {
    fetch: async (signal) => {
      const res = await fetch(url, { signal });
      if (res.status !== 200) throw new Error(`answered ${res.status}`);
      return res.json();
    },
    requests: () => requests,
    answer: (s, b) => {
      status = s;
      body = b;
    },
  };
}

const jwk = async (key: typeof key1, kid: string, alg: string, use = 'sig'): Promise<object> => ({ ...(await exportJWK(key)), kid, alg, use });

describe('JwksCache', () => {
  it('shares one fetch among concurrent callers and keeps the set for its TTL', async () => {
    const server = await idp();
    server.answer(200, { keys: [await jwk(key1, 'a', 'RS256')] });
    let now = 1_000_000;
    const cache = new JwksCache({ fetch: server.fetch, ttlMs: 60_000, maxStaleMs: 60_000, now: () => now });
    const keys = await Promise.all(Array.from({ length: 20 }, () => cache.key('a', 'RS256')));
    expect(new Set(keys).size).toBe(1);
    expect(server.requests()).toBe(1);
    now += 59_000;
    await cache.key('a', 'RS256');
    expect(server.requests()).toBe(1);
    now += 2_000;
    await cache.key('a', 'RS256');
    expect(server.requests()).toBe(2);
    expect(cache.status()).toMatchObject({ keys: 1, lastError: null, fetchedAt: now });
  });

  it('serves the stale set while refetches fail, until max stale has passed', async () => {
    const server = await idp();
    server.answer(200, { keys: [await jwk(key1, 'a', 'RS256')] });
    let now = 0;
    const cache = new JwksCache({ fetch: server.fetch, ttlMs: 10_000, maxStaleMs: 20_000, now: () => now, retryAfterMs: 0 });
    await cache.key('a', 'RS256');
    server.answer(500, {});
    now = 25_000;
    await expect(cache.key('a', 'RS256')).resolves.toBeDefined();
    expect(cache.status().lastError).toBe('answered 500');
    now = 31_000;
    const error = await cache.key('a', 'RS256').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).kind).toBe('jwt');
    expect((error as GatewayError).detail).toContain('answered 500');
    server.answer(200, { keys: [await jwk(key1, 'a', 'RS256')] });
    await expect(cache.key('a', 'RS256')).resolves.toBeDefined();
  });

  it('refetches for an unknown kid (rotation), but not more often than the cooldown', async () => {
    const server = await idp();
    server.answer(200, { keys: [await jwk(key1, 'a', 'RS256')] });
    let now = 0;
    const cache = new JwksCache({ fetch: server.fetch, ttlMs: 3_600_000, maxStaleMs: 0, now: () => now, unknownKidCooldownMs: 10_000 });
    await cache.key('a', 'RS256');
    server.answer(200, { keys: [await jwk(key1, 'a', 'RS256'), await jwk(key2, 'b', 'ES256')] });
    await expect(cache.key('b', 'ES256')).resolves.toBeDefined();
    expect(server.requests()).toBe(2);
    await expect(cache.key('zzz', 'ES256')).rejects.toMatchObject({ kind: 'jwt_token_invalid' });
    await expect(cache.key('yyy', 'ES256')).rejects.toMatchObject({ kind: 'jwt_token_invalid' });
    expect(server.requests()).toBe(2);
    now += 10_000;
    await expect(cache.key('zzz', 'ES256')).rejects.toMatchObject({ kind: 'jwt_token_invalid' });
    expect(server.requests()).toBe(3);
  });

  it("refuses a key whose alg differs from the token's, skips encryption keys, and needs a kid when there are several", async () => {
    const server = await idp();
    server.answer(200, { keys: [await jwk(key1, 'a', 'RS256'), await jwk(key1, 'enc', 'RS256', 'enc'), await jwk(key2, 'b', 'ES256')] });
    const cache = new JwksCache({ fetch: server.fetch, ttlMs: 60_000, maxStaleMs: 0 });
    await expect(cache.key('a', 'RS512')).rejects.toMatchObject({ kind: 'jwt_token_invalid' });
    await expect(cache.key('enc', 'RS256')).rejects.toMatchObject({ kind: 'jwt_token_invalid' });
    await expect(cache.key(undefined, 'RS256')).rejects.toMatchObject({ kind: 'jwt_token_invalid' });
    expect(cache.status().keys).toBe(2);
  });

  it('says what is wrong with a document that is no key set', async () => {
    const server = await idp();
    server.answer(200, { nope: true });
    const cache = new JwksCache({ fetch: server.fetch, ttlMs: 60_000, maxStaleMs: 0 });
    await expect(cache.key('a', 'RS256')).rejects.toMatchObject({ kind: 'jwt', detail: 'no usable key set: the key set has no "keys" list' });
  });
});
