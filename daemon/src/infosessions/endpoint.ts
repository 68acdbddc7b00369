import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceHandler } from '../core/services-listener.js';
import type { ApiKeys } from './api-keys.js';
import { httpStatus, isCallbackName, meta, renderJson, renderJsonp, renderXml, type EnvelopeStatus, type Meta } from './envelope.js';
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

type Format = 'json' | 'xml';

/**
 * `GET /v2/resources/infosessions.{json,xml}?key=...[&callback=...]`. HTTP status equals
 * meta.status (204 goes out as 200 with a body); only a call that returns data is counted.
 */
export function infosessionsEndpoint({ keys, snapshot, now = Date.now }: EndpointOptions): ServiceHandler {
  return async function infosessionsHandler(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const at = now();
    const rawFormat = url.pathname.slice(INFOSESSIONS_PATH.length + 1);
    const format: Format | null = rawFormat === 'json' || rawFormat === 'xml' ? rawFormat : null;
    const head = req.method === 'HEAD';
    const reply = (status: EnvelopeStatus, requests: number, dataJson = '[]', dataXml = '  <data></data>\n', as: Format = format ?? 'json', callback: string | null = null): void =>
      send(res, head, meta(status, requests, at), as, callback, dataJson, dataXml);

    if (req.method !== 'GET' && !head) {
      res.setHeader('Allow', 'GET, HEAD');
      return reply(405, -1);
    }
    if (!format) return reply(501, -1, undefined, undefined, 'json');
    const callbackParam = format === 'json' ? url.searchParams.get('callback') : null;
    const callback = callbackParam === null || callbackParam === '' ? null : callbackParam;
    if (callback !== null && !isCallbackName(callback)) return reply(400, -1);

    const secret = url.searchParams.get('key')?.trim() ?? '';
    if (secret === '') return reply(511, -1, undefined, undefined, format, callback);
    const key = await keys.identify(secret);
    if (!key || key.state === 'revoked') return reply(401, -1, undefined, undefined, format, callback);
    if (key.state === 'banned') return reply(403, await keys.usage(key.id), undefined, undefined, format, callback);

    const current = snapshot();
    // No data, or a HEAD (which carries none): answered, not counted.
    if (current.records.length === 0 || head) {
      await keys.touch(key.id);
      const status = current.records.length === 0 ? 204 : 200;
      return reply(status, await keys.usage(key.id), undefined, undefined, format, callback);
    }
    const counted = await keys.count(key);
    if (!counted.counted) return reply(429, counted.requests, undefined, undefined, format, callback);
    return send(res, false, meta(200, counted.requests, at), format, callback, current.dataJson, current.dataXml);
  };
}

function send(res: ServerResponse, head: boolean, m: Meta, format: Format, callback: string | null, dataJson: string, dataXml: string): void {
  let body: string;
  let type: string;
  if (format === 'xml') {
    body = renderXml(m, dataXml);
    type = 'application/xml; charset=utf-8';
  } else if (callback !== null) {
    body = renderJsonp(callback, renderJson(m, dataJson));
    type = 'application/javascript; charset=utf-8';
  } else {
    body = renderJson(m, dataJson);
    type = 'application/json; charset=utf-8';
  }
  res.writeHead(httpStatus(m.status), {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    // The spec's cache time is 0 seconds; the key is in the URL, so no shared cache may keep it.
    'Cache-Control': 'private, max-age=0, no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(head ? undefined : body);
}
