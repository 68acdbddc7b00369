import type { KeyObject } from 'node:crypto';
import { importJWK, type JWK } from 'jose';
import { GatewayError } from '../errors/error-types.js';

export interface JwksCacheOptions {
  /** Fetches the key set (parsed JSON). */
  readonly fetch: (signal: AbortSignal) => Promise<unknown>;
  readonly ttlMs: number;
  readonly maxStaleMs: number;
  readonly now?: () => number;
  /** A kid missing from a fresh set refetches at most this often (rotation, not a lever for floods). */
  readonly unknownKidCooldownMs?: number;
  /** After a failed refetch, the stale set serves this long before the next try. */
  readonly retryAfterMs?: number;
}

export interface JwksStatus {
  readonly fetchedAt: number | null;
  readonly keys: number;
  readonly lastError: string | null;
}

/** A fetch never waits longer than this. */
const FETCH_TIMEOUT_MS = 10_000;

/**
 * A JSON Web Key Set fetched on first need and kept `ttlMs`; then refetched, the old set
 * serving up to `maxStaleMs` more while refetches fail. One fetch at a time, shared.
 */
export class JwksCache {
  readonly #options: Required<Omit<JwksCacheOptions, 'now'>> & { now: () => number };
  #jwks: JWK[] | null = null;
  #fetchedAt: number | null = null;
  #lastError: string | null = null;
  #inflight: Promise<void> | null = null;
  #nextTry = 0;
  #lastKidRefetch = Number.NEGATIVE_INFINITY;
  #version = 0;
  readonly #imported = new Map<string, Promise<KeyObject | Uint8Array>>();

  constructor(options: JwksCacheOptions) {
    this.#options = { unknownKidCooldownMs: 10_000, retryAfterMs: 5_000, now: Date.now, ...options };
  }

  /** Changes with every fetched set, so what was verified with an older set can be forgotten. */
  get version(): number {
    return this.#version;
  }

  /** Until when (epoch ms) the set at hand is fresh: a check made with it stands no longer. */
  freshUntil(): number {
    return this.#fetchedAt === null ? 0 : this.#fetchedAt + this.#options.ttlMs;
  }

  status(): JwksStatus {
    return { fetchedAt: this.#fetchedAt, keys: this.#jwks?.length ?? 0, lastError: this.#lastError };
  }

  /** The verification key for a token's `kid` and `alg`. */
  async key(kid: string | undefined, alg: string): Promise<KeyObject | Uint8Array> {
    await this.#usable();
    let jwk = this.#find(kid);
    const now = this.#options.now();
    if (jwk === undefined && kid !== undefined && now - this.#lastKidRefetch >= this.#options.unknownKidCooldownMs) {
      this.#lastKidRefetch = now;
      await this.#refresh().catch(() => undefined);
      jwk = this.#find(kid);
    }
    if (jwk === undefined) {
      if (kid === undefined) throw new GatewayError('jwt_token_invalid', `the token has no kid and the key set has ${this.#jwks?.length ?? 0} signing keys`);
      throw new GatewayError('jwt_token_invalid', `no key with kid ${JSON.stringify(kid)} in the key set`);
    }
    if (jwk.alg !== undefined && jwk.alg !== alg) throw new GatewayError('jwt_token_invalid', `the key ${JSON.stringify(kid ?? '')} is for ${jwk.alg}, the token says ${alg}`);
    const cacheKey = `${jwk.kid ?? ''}\u0000${alg}\u0000${JSON.stringify(jwk)}`;
    let imported = this.#imported.get(cacheKey);
    if (!imported) {
      imported = importJWK(jwk, alg) as Promise<KeyObject | Uint8Array>;
      this.#imported.set(cacheKey, imported);
      imported.catch(() => this.#imported.delete(cacheKey));
    }
    try {
      return await imported;
    } catch (error) {
      throw new GatewayError('jwt_token_invalid', `the key ${JSON.stringify(kid ?? '')} cannot verify ${alg}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Makes sure a set is at hand: fresh, or stale within max stale while refetching fails. */
  async #usable(): Promise<void> {
    const now = this.#options.now();
    if (this.#jwks === null) {
      if (now < this.#nextTry && this.#inflight === null) throw this.#unusable();
      await this.#refresh().catch(() => undefined);
      if (this.#jwks === null) throw this.#unusable();
      return;
    }
    const age = now - (this.#fetchedAt ?? 0);
    if (age <= this.#options.ttlMs) return;
    if (now >= this.#nextTry || this.#inflight !== null) await this.#refresh().catch(() => undefined);
    const after = this.#options.now() - (this.#fetchedAt ?? 0);
    if (after > this.#options.ttlMs + this.#options.maxStaleMs) throw this.#unusable();
  }

  #unusable(): GatewayError {
    return new GatewayError('jwt', `no usable key set${this.#lastError ? `: ${this.#lastError}` : ''}`);
  }

  #find(kid: string | undefined): JWK | undefined {
    const keys = this.#jwks ?? [];
    if (kid !== undefined) return keys.find((k) => k.kid === kid);
    return keys.length === 1 ? keys[0] : undefined;
  }

  #refresh(): Promise<void> {
    this.#inflight ??= this.#fetch().finally(() => (this.#inflight = null));
    return this.#inflight;
  }

  async #fetch(): Promise<void> {
    try {
      const body = await this.#options.fetch(AbortSignal.timeout(FETCH_TIMEOUT_MS));
      this.#jwks = signingKeys(body);
      this.#version += 1;
      this.#fetchedAt = this.#options.now();
      this.#lastError = null;
    } catch (error) {
      this.#lastError = error instanceof Error ? error.message : String(error);
      this.#nextTry = this.#options.now() + this.#options.retryAfterMs;
      throw error;
    }
  }
}

/** The signature keys of a JWKS document (RFC 7517); `use` other than `sig` is skipped. */
function signingKeys(body: unknown): JWK[] {
  const keys = (body as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error('the key set has no "keys" list');
  return keys.filter((k): k is JWK => k !== null && typeof k === 'object' && typeof (k as JWK).kty === 'string' && ((k as JWK).use === undefined || (k as JWK).use === 'sig'));
}
