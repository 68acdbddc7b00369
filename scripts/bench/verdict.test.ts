import { describe, expect, it } from 'vitest';
import { verdict } from './lib.mjs';

describe('a benchmark verdict', () => {
  it('shows a ratio with three decimals, and more where three would round a miss onto its target', () => {
    expect(verdict('Portico / nginx', 0.41234, 0.4)).toBe('  Portico / nginx: 0.412 (target >= 0.4x): met');
    expect(verdict('Portico / nginx', 0.39976, 0.4)).toBe('  Portico / nginx: 0.3998 (target >= 0.4x): not met');
    expect(verdict('Portico / nginx', 0.4, 0.4)).toBe('  Portico / nginx: 0.400 (target >= 0.4x): met');
  });

  it('shows milliseconds with one decimal, and more where one would round a miss onto its limit', () => {
    expect(verdict('reload p99', 81.84, 100, { atMost: true, unit: 'ms' })).toBe('  reload p99: 81.8 ms (target <= 100.0 ms): met');
    expect(verdict('reload p99', 100.04, 100, { atMost: true, unit: 'ms' })).toBe('  reload p99: 100.04 ms (target <= 100.0 ms): not met');
    expect(verdict('failed requests', 0, 0, { atMost: true, unit: 'requests' })).toBe('  failed requests: 0 requests (target <= 0 requests): met');
  });
});
