/**
 * A header name from the configuration (`request_id_client_header` and the like) as the key of a
 * header record: lower case, made once per name. Lower-casing it on every request gave V8 a new
 * string as the property key each time, which it had to look up in its string table before each
 * store (profiled at a fixed rate: about a fifth of `handleRequest`'s own time); the string kept
 * here is looked up once and is then the key V8 knows.
 */
const keys = new Map<string, string>();
/** Names come from configurations: few. Past this many, the rest are lower-cased each time. */
const KEYS_MAX = 256;

export function headerKey(name: string): string {
  let key = keys.get(name);
  if (key === undefined) {
    key = name.toLowerCase();
    if (keys.size < KEYS_MAX) keys.set(name, key);
  }
  return key;
}
