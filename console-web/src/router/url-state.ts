/** A view's state kept in the address: every value a string, '' for "not set". */
export type UrlValues = Record<string, string>;

/** The values of `defaults`' keys in a query string (`?q=google&page=2`); a key that is absent takes its default. */
export function readUrlValues<T extends UrlValues>(search: string, defaults: T): T {
  const params = new URLSearchParams(search);
  const out: UrlValues = {};
  for (const [key, fallback] of Object.entries(defaults)) out[key] = params.get(key) ?? fallback;
  return out as T;
}

/**
 * `search` with `values` written in (`?q=google`): a value equal to its default is left out, so
 * an untouched view has a clean address; keys that belong to no one here are kept as they were.
 */
export function writeUrlValues<T extends UrlValues>(search: string, values: T, defaults: T): string {
  const params = new URLSearchParams(search);
  for (const [key, value] of Object.entries(values)) {
    if (value === defaults[key] || value === '') params.delete(key);
    else params.set(key, value);
  }
  const query = params.toString();
  return query ? `?${query}` : '';
}
