import fc from 'fast-check';
import { expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

it('gives the ISO time of every instant, in any order of calls (its kept answers never leak into another)', () => {
  const instant = fc.integer({ min: 0, max: 4_000_000_000_000 });
  fc.assert(
    fc.property(fc.array(fc.oneof(instant, instant.map((ms) => new Date(ms))), { minLength: 1, maxLength: 30 }), (instants) => {
      // Repeats and alternations too: a backend line and an access line of two milliseconds, interleaved.
      for (const at of [...instants, ...instants.slice().reverse(), ...instants]) {
        expect(isoTime(at)).toBe(new Date(typeof at === 'number' ? at : at.getTime()).toISOString());
      }
    }),
  );
});
