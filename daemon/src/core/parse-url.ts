/**
 * `new URL(text, base)`, or null when `text` is not a URL.
 *
 * The one way the daemon asks "is this a URL?": not `URL.canParse`, whose V8 fast path on
 * Node 20 (and 22), once a caller is optimized after some thousands of calls, answers false for
 * a valid URL held as a one-byte string with a non-ASCII character (`http://ä:80`), so a valid
 * configuration or callback URL would be refused, but only in a process that has run a while
 * (daemon/src/core/parse-url.test.ts shows it; fixed in Node 24).
 */
export function parseUrl(text: string, base?: string): URL | null {
  try {
    return new URL(text, base);
  } catch {
    return null;
  }
}
