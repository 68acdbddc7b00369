import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lowerCaseName } from './header-name.js';

describe('lowerCaseName', () => {
  it('is toLowerCase, returning a name already in lower case itself', () => {
    expect(lowerCaseName('X-Forwarded-For')).toBe('x-forwarded-for');
    expect(lowerCaseName('ÉTAG')).toBe('étag');
    expect(lowerCaseName('')).toBe('');
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[A-Za-z0-9-]{0,20}$/), fc.string({ unit: 'binary', maxLength: 8 })), (name) => {
        expect(lowerCaseName(name)).toBe(name.toLowerCase());
      }),
    );
  });
});
