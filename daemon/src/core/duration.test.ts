import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['5s', 5000],
    ['250ms', 250],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['10', 10_000],
    ['100us', 0.1],
  ])('%s is %d ms', (text, ms) => expect(parseDuration(text, 'X')).toBe(ms));

  it.each(['', 's', '5 s', '5x', '5s-', '-5s', '5constructor'])('refuses %j with the accepted forms', (text) => {
    expect(() => parseDuration(text, 'PORTICO_SHUTDOWN_TIMEOUT')).toThrow(/PORTICO_SHUTDOWN_TIMEOUT: .* is not a duration; write a number and a unit/);
  });
});
