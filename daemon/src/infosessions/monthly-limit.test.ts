import { describe, expect, it } from 'vitest';
import { parseMonthlyLimit } from './monthly-limit.js';

describe('monthly limit as typed in a console', () => {
  it('reads empty as no limit and digits as the limit', () => {
    expect(parseMonthlyLimit('  ')).toEqual({ ok: true, value: null });
    expect(parseMonthlyLimit(' 1000 ')).toEqual({ ok: true, value: 1000 });
    expect(parseMonthlyLimit('0')).toEqual({ ok: true, value: 0 });
  });

  it('says what was wrong and what to type instead', () => {
    expect(parseMonthlyLimit('1k')).toEqual({ ok: false, message: 'monthly limit "1k" is not a whole number: type e.g. 10000, or leave it empty' });
    expect(parseMonthlyLimit('-5').ok).toBe(false);
    expect(parseMonthlyLimit('2.5').ok).toBe(false);
    expect(parseMonthlyLimit('1234567890123')).toMatchObject({ ok: false, message: expect.stringContaining('too large') });
  });
});
