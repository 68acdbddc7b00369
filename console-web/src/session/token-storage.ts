/** The part of the Web Storage API we use; sessionStorage in the browser, a Map in tests. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const TOKEN_KEY = 'portico.control-token';

/** The control token lives in sessionStorage: it survives a reload but not closing the tab. */
export function readToken(storage: KeyValueStorage): string | null {
  try {
    const token = storage.getItem(TOKEN_KEY);
    return token && token.trim() !== '' ? token : null;
  } catch {
    // Storage can throw when the browser blocks it; then the token simply is not remembered.
    return null;
  }
}

export function saveToken(storage: KeyValueStorage, token: string): void {
  try {
    storage.setItem(TOKEN_KEY, token);
  } catch {
    // Same as above: without storage the session lasts until the page is reloaded.
  }
}

export function forgetToken(storage: KeyValueStorage): void {
  try {
    storage.removeItem(TOKEN_KEY);
  } catch {
    // Nothing stored, nothing to forget.
  }
}

/** Pasted tokens often carry a trailing newline or a `Bearer ` prefix copied from a curl line. */
export function normaliseToken(input: string): string {
  return input.trim().replace(/^Bearer\s+/i, '').trim();
}
