import { describe, expect, it } from 'vitest';
import { parseGoDuration, parseSize } from './units.js';

describe("Go's duration syntax", () => {
  it.each([
    ['0', 0],
    ['300ms', 300],
    ['1h2m3.5s', 3_723_500],
    ['.5s', 500],
    ['1.s', 1000],
    ['+2s', 2000],
    ['-1.5m', -90_000],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['1500μs', 1.5],
    ['2000000ns', 2],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['s', 'time: invalid duration "s"'],
    ['.s', 'time: invalid duration ".s"'],
    ['10', 'time: missing unit in duration "10"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['1s 2m', 'time: unknown unit "s " in duration "1s 2m"'],
    ['1constructor', 'time: unknown unit "constructor" in duration "1constructor"'],
    ['2valueOf', 'time: unknown unit "valueOf" in duration "2valueOf"'],
  ])('refuses %j as Go does', (text, message) => {
    expect(parseGoDuration(text)).toBe(message);
  });
});

describe('sizes', () => {
  it('reads B, KiB, MiB and GiB', () => {
    expect([parseSize('10B'), parseSize('1KiB'), parseSize('64MiB'), parseSize('1GiB'), parseSize('0.5KiB')]).toEqual([10, 1024, 64 * 1024 * 1024, 1024 ** 3, 512]);
  });

  it('refuses decimal units and missing units', () => {
    expect(parseSize('64MB')).toMatch(/^"64MB" is not a size/);
    expect(parseSize('64')).toMatch(/^"64" is not a size/);
  });
});
