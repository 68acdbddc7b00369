import { describe, expect, it } from 'vitest';
import { readUrlValues, writeUrlValues } from './url-state';

const DEFAULTS = { q: '', state: '', key: '', page: '1' };

describe('view state in the address', () => {
  it('reads the keys a view keeps, with its defaults for the absent ones', () => {
    expect(readUrlValues('?q=mobile&key=key_0a1b2c3d4e&other=x', DEFAULTS)).toEqual({ q: 'mobile', state: '', key: 'key_0a1b2c3d4e', page: '1' });
    expect(readUrlValues('', DEFAULTS)).toEqual(DEFAULTS);
    expect(readUrlValues('?q=caf%C3%A9+bar', DEFAULTS).q).toBe('café bar');
  });

  it('writes only what differs from the defaults, keeping keys it does not own', () => {
    expect(writeUrlValues('', { ...DEFAULTS, q: 'mobile app', state: 'banned' }, DEFAULTS)).toBe('?q=mobile+app&state=banned');
    expect(writeUrlValues('?q=mobile&level=warn', { ...DEFAULTS, q: '' }, DEFAULTS)).toBe('?level=warn');
    expect(writeUrlValues('?page=3', { ...DEFAULTS, page: '1' }, DEFAULTS)).toBe('');
    expect(writeUrlValues('', DEFAULTS, DEFAULTS)).toBe('');
  });
});
