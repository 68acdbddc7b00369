import { describe, expect, it } from 'vitest';
import { commonRequestId } from './request-id.js';

/** The 12 bytes of a base32hex xid (20 characters, the last 4 bits padding). */
function xidBytes(id: string): Buffer {
  const ALPHABET = '0123456789abcdefghijklmnopqrstuv';
  let bits = '';
  for (const c of id) bits += ALPHABET.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(Array.from({ length: 12 }, (_, i) => parseInt(bits.slice(i * 8, i * 8 + 8), 2)));
}

describe('common request ids', () => {
  it('encode the Unix seconds, the same process bytes and a counter that goes up by one, across seconds', () => {
    const at = Date.UTC(2031, 5, 7, 8, 9, 10, 500);
    const ids = [commonRequestId(at), commonRequestId(at + 1), commonRequestId(at + 1000), commonRequestId(at + 3_600_000)];
    const bytes = ids.map(xidBytes);
    expect(ids.every((id) => /^[0-9a-v]{19}[0g]$/.test(id))).toBe(true);
    expect(bytes.map((b) => b.readUInt32BE(0))).toEqual([at, at + 1, at + 1000, at + 3_600_000].map((t) => Math.floor(t / 1000)));
    expect(new Set(bytes.map((b) => b.subarray(4, 9).toString('hex'))).size).toBe(1);
    const counters = bytes.map((b) => b.readUIntBE(9, 3));
    expect(counters.slice(1).map((c, i) => (c - (counters[i] as number) + 0x1000000) % 0x1000000)).toEqual([1, 1, 1]);
    expect(ids.slice().sort()).toEqual(ids);
  });
});
