/**
 * The assertion IDs already accepted, each kept until its assertion could no longer be accepted
 * anyway. Bounded: when full, the oldest entry goes first, which is the one closest to expiring
 * because assertions of one IdP share a lifetime.
 */
export class ReplayCache {
  readonly #expiresAt = new Map<string, number>();

  constructor(readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError(`replay cache size must be a positive integer, not ${maxEntries}`);
  }

  get size(): number {
    return this.#expiresAt.size;
  }

  /** Records `key` until `expiresAtMs`; false when it is already recorded and not yet expired. */
  claim(key: string, expiresAtMs: number, nowMs: number): boolean {
    const known = this.#expiresAt.get(key);
    if (known !== undefined && known > nowMs) return false;
    this.#expiresAt.delete(key);
    this.#dropExpired(nowMs);
    if (this.#expiresAt.size >= this.maxEntries) {
      const oldest = this.#expiresAt.keys().next();
      if (oldest.done !== true) this.#expiresAt.delete(oldest.value);
    }
    this.#expiresAt.set(key, expiresAtMs);
    return true;
  }

  /** Expired entries at the front; stops at the first live one so a claim costs O(1) amortised. */
  #dropExpired(nowMs: number): void {
    for (const [key, expiresAt] of this.#expiresAt) {
      if (expiresAt > nowMs) return;
      this.#expiresAt.delete(key);
    }
  }
}

/** Who says whether an assertion was used before: the process's own cache, or for a gateway serving process its daemon's. */
export interface ReplayClaims {
  /** Records `key` until `expiresAtMs`; false when it is already recorded and not yet expired. */
  claim(key: string, expiresAtMs: number, nowMs: number): boolean | Promise<boolean>;
}

/** Assertion IDs kept by a process (about 100 bytes each). */
const PROCESS_CACHE_SIZE = 100_000;
let processClaims: ReplayClaims | null = null;

/**
 * The claims of every saml access control in this process, across reloads: a response used once
 * stays used when the configuration is applied again (each applied configuration builds its
 * access controls anew), and in every serving process when there are several (they ask the daemon).
 */
export function replayClaims(): ReplayClaims {
  return (processClaims ??= new ReplayCache(PROCESS_CACHE_SIZE));
}

/** A gateway serving process: its daemon keeps the assertion IDs for all serving processes. */
export function useReplayClaims(claims: ReplayClaims): void {
  processClaims = claims;
}
