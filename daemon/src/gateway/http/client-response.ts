/**
 * Last touches on every client response: `secure_cookies = "strip"` and gzip. Gzip applies
 * when the client accepts it, the type is text-like, the body is at least GZIP_MIN_BYTES (or
 * of unknown length), nothing encoded it already, and the answer has a body at all (not HEAD,
 * 204 or 304).
 */
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { carryTrailers, trailersOf } from '../backend/trailers.js';
import type { GatewayResponse } from '../contracts.js';

export const GZIP_MIN_BYTES = 1024;

type Headers = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Removes the `Secure` attribute from every Set-Cookie. */
export function stripSecureCookies(headers: Record<string, string | string[]>): void {
  const raw = headers['set-cookie'];
  if (raw === undefined) return;
  const list = Array.isArray(raw) ? raw : [raw];
  headers['set-cookie'] = list.map((cookie) =>
    cookie
      .split(';')
      .filter((part, i) => i === 0 || part.trim().toLowerCase() !== 'secure')
      .join(';'),
  );
}

const COMPRESSIBLE = /^(text\/|application\/(json|[\w.+-]+\+json|xml|[\w.+-]+\+xml|javascript|x-javascript|ecmascript|manifest\+json|yaml|x-yaml|graphql|wasm)|image\/svg\+xml|font\/(ttf|otf))/i;

function acceptsGzip(headers: Headers): boolean {
  const raw = headers['accept-encoding'];
  const value = Array.isArray(raw) ? raw.join(',') : (raw as string | undefined);
  if (!value) return false;
  return value.split(',').some((entry) => {
    const [coding, ...params] = entry.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function appendVary(headers: Record<string, string | string[]>, token: string): void {
  const current = one(headers.vary);
  if (!current) headers.vary = token;
  else if (!current.split(',').some((v) => v.trim().toLowerCase() === token.toLowerCase())) headers.vary = `${current}, ${token}`;
}

/** The response, gzipped when it should be. */
export function maybeGzip(method: string, requestHeaders: Headers, response: GatewayResponse): GatewayResponse {
  const headers = response.headers;
  const type = one(headers['content-type']) ?? '';
  if (!COMPRESSIBLE.test(type) || response.status === 204 || response.status === 304) return response;
  const declared = one(headers['content-length']);
  const length = Buffer.isBuffer(response.body) ? response.body.length : declared === undefined ? null : Number(declared);
  // Too short to be compressed for anyone: the representation does not vary (as the peer).
  if ((length !== null && length < GZIP_MIN_BYTES) || (response.body === null && method !== 'HEAD')) return response;
  // The representation varies by Accept-Encoding whether or not this client gets gzip.
  appendVary(headers, 'Accept-Encoding');
  if (method === 'HEAD' || response.body === null) return response;
  if (!acceptsGzip(requestHeaders)) return response;
  const encoding = one(headers['content-encoding']);
  if (encoding && encoding.toLowerCase() !== 'identity') return response;
  const gzip = createGzip();
  const source = Buffer.isBuffer(response.body) ? Readable.from([response.body]) : response.body;
  // A backend's trailers follow the gzipped body as they would the plain one (the source ends first).
  const trailers = Buffer.isBuffer(response.body) ? undefined : trailersOf(response.body);
  if (trailers) carryTrailers(gzip, trailers);
  source.on('error', (error) => gzip.destroy(error));
  source.pipe(gzip);
  const out: Record<string, string | string[]> = { ...headers, 'content-encoding': 'gzip' };
  delete out['content-length'];
  // A strong validator names the unencoded bytes; the gzipped ones get a weak one.
  const etag = one(out.etag);
  if (etag && !etag.startsWith('W/')) out.etag = `W/${etag}`;
  return { status: response.status, headers: out, body: gzip };
}
