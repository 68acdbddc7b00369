import { randomFillSync } from 'node:crypto';

const POOL_IDS = 256;
let pool = Buffer.alloc(0);
let offset = 0;
/** The last counter of each of the latest milliseconds ids were made for (a few: callers pass their own times). */
const counters = new Map<number, number>();
const KEPT_MILLISECONDS = 8;
/** rand_a (12 bits) and the first 30 bits of rand_b count; the other 32 bits stay random. */
const COUNTER_BITS = 42;
const COUNTER_LIMIT = 2 ** COUNTER_BITS;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, a 42-bit counter, 32 random bits.
 * Rows written one after another get ids that sort together, so their index entries share B-tree
 * pages; with random (v4) ids every outbox update and attempt insert lands on a page of its own.
 * Within one millisecond the counter (random at the millisecond's first id, with room to count
 * up) keeps them in the order they were made (RFC 9562 6.2, method 1): a burst of jobs finished
 * together is delivered in that order, and its attempts' index entries append instead of
 * landing on random pages. Counters are kept for the last few milliseconds ids were made for.
 */
export function timeOrderedId(now = Date.now()): string {
  if (offset + 10 > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_IDS * 10));
    offset = 0;
  }
  const ms = Math.max(0, Math.trunc(now)) % 2 ** 48;
  const last = counters.get(ms);
  // The first id of a millisecond starts its counter at random with the top bit clear: at least
  // 2^41 more fit in the millisecond.
  const count = last !== undefined && last + 1 < COUNTER_LIMIT ? last + 1 : pool.readUIntBE(offset, 6) % (COUNTER_LIMIT / 2);
  if (last === undefined && counters.size >= KEPT_MILLISECONDS) counters.delete(counters.keys().next().value!);
  counters.set(ms, count);
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(ms, 0, 6);
  // rand_a: the counter's top 12 bits after the version nibble; rand_b: its low 30 bits, then random.
  const high = Math.floor(count / 2 ** 30);
  const low = count % 2 ** 30;
  bytes[6] = 0x70 | (high >>> 8);
  bytes[7] = high & 0xff;
  bytes[8] = 0x80 | (low >>> 24);
  bytes[9] = (low >>> 16) & 0xff;
  bytes[10] = (low >>> 8) & 0xff;
  bytes[11] = low & 0xff;
  pool.copy(bytes, 12, offset + 6, offset + 10);
  offset += 10;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
