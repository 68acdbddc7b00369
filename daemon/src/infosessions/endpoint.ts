import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceHandler } from '../core/services-listener.js';
import type { ApiKeys } from './api-keys.js';
import { envelopeParts, httpStatus, isCallbackName, meta, type EnvelopeStatus, type Format, type Meta } from './envelope.js';
import type { SessionSnapshot } from './source.js';

/** The public path; `{format}` follows the dot. */
export const INFOSESSIONS_PATH = '/v2/resources/infosessions';

export function isInfosessionsPath(pathname: string): boolean {
  return pathname === INFOSESSIONS_PATH || pathname.startsWith(`${INFOSESSIONS_PATH}.`);
}

export interface EndpointOptions {
  keys: ApiKeys;
  snapshot: () => SessionSnapshot;
  now?: () => number;
}


/**
 * `GET /v2/resources/infosessions.{json,xml}?key=...[&callback=...]`. HTTP status equals
 * meta.status (204 goes out as 200 with a body); only a call that returns data is counted.
 */
const EMPTY_JSON = Buffer.from('[]');
const EMPTY_XML = Buffer.from('  <data></data>\n');

export function infosessionsEndpoint({ keys, snapshot, now = Date.now }: EndpointOptions): ServiceHandler {
  return async function infosessionsHandler(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const at = now();
    const rawFormat = url.pathname.slice(INFOSESSIONS_PATH.length + 1);
    const format: Format | null = rawFormat === 'json' || rawFormat === 'xml' ? rawFormat : null;
    const head = req.method === 'HEAD';
    let callback: string | null = null;
    const reply = (status: EnvelopeStatus, requests: number, data: SessionSnapshot | null = null): void =>
      send(res, head, meta(status, requests, at), format ?? 'json', callback, data);

    if (req.method !== 'GET' && !head) {
      res.setHeader('Allow', 'GET, HEAD');
      return reply(405, -1);
    }
    if (!format) return reply(501, -1);
    const callbackParam = format === 'json' ? url.searchParams.get('callback') : null;
    if (callbackParam !== null && callbackParam !== '') {
      if (!isCallbackName(callbackParam)) return reply(400, -1);
      callback = callbackParam;
    }

    const secret = url.searchParams.get('key')?.trim() ?? '';
    if (secret === '') return reply(511, -1);
    const key = await keys.identify(secret);
    if (!key || key.state === 'revoked') return reply(401, -1);
    if (key.state === 'banned') return reply(403, await keys.usage(key.id));

    const current = snapshot();
    // No data, or a HEAD (which carries none): answered, not counted.
    if (current.records.length === 0 || head) {
      await keys.touch(key.id);
      return reply(current.records.length === 0 ? 204 : 200, await keys.usage(key.id));
    }
    const counted = await keys.count(key);
    if (!counted.counted) return reply(429, counted.requests);
    return reply(200, counted.requests, current);
  };
}

function send(res: ServerResponse, head: boolean, m: Meta, format: Format, callback: string | null, data: SessionSnapshot | null): void {
  const { prefix, suffix, contentType } = envelopeParts(format, m, callback);
  const body = format === 'xml' ? (data?.dataXml ?? EMPTY_XML) : (data?.dataJson ?? EMPTY_JSON);
  res.writeHead(httpStatus(m.status), {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(prefix) + body.length + Buffer.byteLength(suffix),
    // The spec's cache time is 0 seconds; the key is in the URL, so no shared cache may keep it.
    'Cache-Control': 'private, max-age=0, no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
  if (head) {
    res.end();
    return;
  }
  res.cork();
  res.write(prefix);
  res.write(body);
  res.end(suffix);
}
