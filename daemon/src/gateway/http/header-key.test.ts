import { describe, expect, it } from 'vitest';
import { headerKey } from './header-key.js';

describe('headerKey', () => {
  it('gives a configured header name in lower case, the same on every call', () => {
    expect(headerKey('Gateway-Request-ID')).toBe('gateway-request-id');
    expect(headerKey('Gateway-Request-ID')).toBe('gateway-request-id');
    expect(headerKey('x-already-lower')).toBe('x-already-lower');
    expect(headerKey('')).toBe('');
  });

  it('still lower-cases names once more of them than it keeps have been seen', () => {
    for (let i = 0; i < 300; i++) expect(headerKey(`X-Name-${i}`)).toBe(`x-name-${i}`);
    expect(headerKey('X-Late-Name')).toBe('x-late-name');
  });
});
