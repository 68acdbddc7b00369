/**
 * `files` and `spa` serving. A path is resolved inside document_root only: encoded or plain
 * `..`/`.` segments, backslashes, NUL and encoded slashes are refused, and the real path
 * (symlinks followed) must stay under the real root. Directories serve their index.html and
 * are first redirected to their slash form; GET and HEAD only; Last-Modified and a weak ETag
 * give 304s.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import type { GatewayResponse } from '../contracts.js';
import { contentTypeFor } from './content-types.js';

type Headers = Readonly<Record<string, string | readonly string[] | undefined>>;

export const STATIC_METHODS: readonly string[] = ['GET', 'HEAD'];

/** Decoded path segments of `rest`, or null when the path tries to leave the root or is malformed. */
export function safeSegments(rest: string): string[] | null {
  if (rest.includes('\\') || rest.includes('\0')) return null;
  const segments: string[] = [];
  for (const raw of rest.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '.' || segment === '..' || /[\\/\0]/.test(segment)) return null;
    segments.push(segment);
  }
  return segments;
}

/** The real path of `segments` under `root`, or null when it does not exist or escapes the root. */
async function resolveInside(root: string, segments: readonly string[]): Promise<string | null> {
  try {
    const realRoot = await realpath(root);
    const real = await realpath(join(realRoot, ...segments));
    return real === realRoot || real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep) ? real : null;
  } catch {
    return null;
  }
}

export interface FileRequest {
  readonly documentRoot: string;
  /** The part of the path under the files base path, as received (encoded). */
  readonly rest: string;
  /** The whole request path as received, for the directory redirect. */
  readonly path: string;
  /** `?...` or "". */
  readonly search: string;
  readonly method: string;
  readonly headers: Headers;
}

/** The response for a file, a redirect to a directory's slash form, or null when there is no such file. */
export async function serveFile(request: FileRequest): Promise<GatewayResponse | null> {
  const segments = safeSegments(request.rest);
  if (!segments) return null;
  let file = await resolveInside(request.documentRoot, segments);
  if (!file) return null;
  let info = await stat(file);
  if (info.isDirectory()) {
    if (!request.path.endsWith('/')) return { status: 301, headers: { location: `${request.path}/${request.search}`, 'content-length': '0' }, body: null };
    file = await resolveInside(request.documentRoot, [...segments, 'index.html']);
    if (!file) return null;
    info = await stat(file);
  }
  if (!info.isFile()) return null;
  return fileResponse(file, info.size, info.mtime, request.method, request.headers);
}

/** A readable file as the response (the spa bootstrap file, or a resolved file). */
export async function fileResponse(file: string, size: number, mtime: Date, method: string, headers: Headers): Promise<GatewayResponse> {
  const lastModified = new Date(Math.floor(mtime.getTime() / 1000) * 1000);
  const etag = `W/"${size.toString(16)}-${Math.floor(mtime.getTime()).toString(16)}"`;
  const out: Record<string, string> = {
    'content-type': contentTypeFor(extname(file)),
    'last-modified': lastModified.toUTCString(),
    etag,
  };
  if (notModified(headers, etag, lastModified)) return { status: 304, headers: out, body: null };
  out['content-length'] = String(size);
  return { status: 200, headers: out, body: method === 'HEAD' ? null : createReadStream(file) };
}

export async function bootstrapResponse(file: string, method: string, headers: Headers): Promise<GatewayResponse> {
  const info = await stat(file);
  return fileResponse(file, info.size, info.mtime, method, headers);
}

function notModified(headers: Headers, etag: string, lastModified: Date): boolean {
  const inm = headers['if-none-match'];
  if (typeof inm === 'string') return inm.split(',').some((t) => t.trim() === etag || t.trim() === '*' || t.trim() === etag.slice(2));
  const ims = headers['if-modified-since'];
  if (typeof ims === 'string') {
    const since = Date.parse(ims);
    return !Number.isNaN(since) && lastModified.getTime() <= since;
  }
  return false;
}
