import { lowerCaseName } from '../../core/header-name.js';

/** Hop-by-hop headers (RFC 7230 6.1, plus the legacy ones the peer drops): never forwarded either way. */
const HOP_HEADERS: ReadonlySet<string> = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

type In = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A copy without hop-by-hop headers and those the Connection header lists; `drop` names more to leave out. */
export function endToEndHeaders(headers: In, drop: readonly string[] = []): Record<string, string | string[]> {
  const connection = headers['connection'];
  const listed = connection === undefined ? null : (typeof connection === 'string' ? [connection] : connection).flatMap((v) => v.split(',').map((s) => s.trim().toLowerCase()));
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = lowerCaseName(name);
    if ((drop.length > 0 && drop.includes(lower)) || (listed !== null && listed.includes(lower))) continue;
    if (HOP_HEADERS.has(lower) && !(lower === 'te' && value === 'trailers')) continue;
    out[lower] = typeof value === 'string' ? value : [...value];
  }
  return out;
}
