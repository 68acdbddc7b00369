import { describe, expect, it } from 'vitest';
import { evaluateSource, evaluateSourceValue } from './index.js';
import { HclNumber } from './number.js';

const text = (src: string): string => String(evaluateSourceValue(`"\${${src}} "`)).trimEnd();

describe('numbers', () => {
  it('keeps integers beyond 2^53 exact', () => {
    expect(text('9007199254740993 + 1')).toBe('9007199254740994');
    expect(text('123456789012345678901234567890 * 10')).toBe('1234567890123456789012345678900');
  });

  it('prints as plain decimals, never in exponent notation', () => {
    expect(text('1e21')).toBe('1000000000000000000000');
    expect(text('1.5e-7')).toBe('0.00000015');
    expect(text('0.1 + 0.2')).toBe('0.3');
  });

  it('follows upstream rules for division and remainder', () => {
    expect(text('7 / 2')).toBe('3.5');
    expect(text('-7 % 3')).toBe('-1');
    expect(text('1 / 0')).toBe('+Inf');
    expect(text('1/3').startsWith('0.3333333333333333333')).toBe(true);
  });

  it('returns plain JS numbers from evaluate', () => {
    expect(evaluateSource('2 * 21')).toBe(42);
    expect(evaluateSource('1e21')).toBe(1e21);
  });

  it('parses and compares', () => {
    expect(HclNumber.parse('1.e5')?.toString()).toBe('100000');
    expect(HclNumber.parse('abc')).toBeUndefined();
    expect(HclNumber.parse('2')?.compare(HclNumber.parse('10') as HclNumber)).toBe(-1);
    expect(HclNumber.POS_INF.compare(HclNumber.parse('1e300') as HclNumber)).toBe(1);
  });
});
