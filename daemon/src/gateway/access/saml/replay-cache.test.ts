import { describe, expect, it } from 'vitest';
import { ReplayCache } from './replay-cache.js';

describe('ReplayCache', () => {
  it('refuses a key until it expires, then takes it again', () => {
    const cache = new ReplayCache(10);
    expect(cache.claim('a', 1_000, 0)).toBe(true);
    expect(cache.claim('a', 1_000, 999)).toBe(false);
    expect(cache.claim('a', 2_000, 1_000)).toBe(true);
    expect(cache.claim('a', 2_000, 1_500)).toBe(false);
  });

  it('drops expired entries before evicting live ones', () => {
    const cache = new ReplayCache(2);
    cache.claim('old', 100, 0);
    cache.claim('live', 10_000, 0);
    cache.claim('new', 10_000, 200);
    expect(cache.size).toBe(2);
    expect(cache.claim('live', 10_000, 300)).toBe(false);
    expect(cache.claim('new', 10_000, 300)).toBe(false);
  });

  it('never holds more than its size', () => {
    const cache = new ReplayCache(3);
    for (let i = 0; i < 100; i += 1) cache.claim(`k${i}`, 1_000_000, i);
    expect(cache.size).toBe(3);
    expect(cache.claim('k99', 1_000_000, 100)).toBe(false);
    expect(cache.claim('k0', 1_000_000, 100)).toBe(true);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => new ReplayCache(0)).toThrow(RangeError);
  });
});
