import { describe, expect, it } from 'vitest';
import { forgetToken, normaliseToken, readToken, saveToken, type KeyValueStorage } from './token-storage';

function memoryStorage(): KeyValueStorage {
  const map = new Map<string, string>();
  return {
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

describe('token storage', () => {
  it('keeps a token until it is forgotten', () => {
    const storage = memoryStorage();
    expect(readToken(storage)).toBeNull();
    saveToken(storage, 'abc');
    expect(readToken(storage)).toBe('abc');
    forgetToken(storage);
    expect(readToken(storage)).toBeNull();
  });

  it('treats a blocked storage as empty instead of failing', () => {
    const blocked: KeyValueStorage = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('SecurityError');
      },
      removeItem: () => {
        throw new Error('SecurityError');
      },
    };
    expect(() => saveToken(blocked, 'abc')).not.toThrow();
    expect(readToken(blocked)).toBeNull();
  });

  it('strips whitespace and a pasted Bearer prefix', () => {
    expect(normaliseToken('  Bearer abc123\n')).toBe('abc123');
    expect(normaliseToken('abc123')).toBe('abc123');
  });
});
