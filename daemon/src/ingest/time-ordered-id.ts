import { randomFillSync } from 'node:crypto';

const POOL_IDS = 256;
let pool = Buffer.alloc(0);
let offset = 0;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Rows written
 * one after another get ids that sort together, so their index entries share B-tree pages; with
 * random (v4) ids every outbox update and attempt insert lands on a page of its own.
 */
export function timeOrderedId(now = Date.now()): string {
  if (offset + 10 > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_IDS * 10));
    offset = 0;
  }
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(Math.max(0, Math.trunc(now)) % 2 ** 48, 0, 6);
  pool.copy(bytes, 6, offset, offset + 10);
  offset += 10;
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
