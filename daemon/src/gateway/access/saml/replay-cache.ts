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
