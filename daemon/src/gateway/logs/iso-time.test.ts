import fc from 'fast-check';
import { expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

const expected = (at: number | Date): string => new Date(typeof at === 'number' ? at : at.getTime()).toISOString();

it('gives the ISO time of every instant, in any order of calls (its kept answers never leak into another)', () => {
  const instant = fc.integer({ min: 0, max: 4_000_000_000_000 });
  fc.assert(
    fc.property(fc.array(fc.oneof(instant, instant.map((ms) => new Date(ms))), { minLength: 1, maxLength: 30 }), (instants) => {
      // Repeats and alternations too: a backend line and an access line of two milliseconds, interleaved.
      for (const at of [...instants, ...instants.slice().reverse(), ...instants]) expect(isoTime(at)).toBe(expected(at));
    }),
  );
});

it('gives the right milliseconds when instants of a few seconds interleave (the kept seconds)', () => {
  // Three neighbouring seconds and any millisecond in them: lines of requests that straddle a second.
  const base = fc.integer({ min: 0, max: 4_000_000_000 }).map((s) => s * 1000);
  fc.assert(
    fc.property(base, fc.array(fc.integer({ min: 0, max: 2999 }), { minLength: 1, maxLength: 40 }), (start, offsets) => {
      for (const offset of offsets) expect(isoTime(start + offset)).toBe(expected(start + offset));
    }),
  );
});

it('formats times before 1970, after 9999 and with a fraction of a millisecond as Date does', () => {
  for (const at of [-1, -999, -1000, -1001, -86_400_000 * 365, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15, 1.7, 1_700_000_000_000.999, 999.5]) {
    expect(isoTime(at)).toBe(expected(at));
    // Asked again, from what was kept.
    expect(isoTime(at)).toBe(expected(at));
  }
  expect(() => isoTime(Number.NaN)).toThrow(RangeError);
});
