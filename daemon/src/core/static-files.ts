/**
 * The one static-file server, for the web dashboard and the gateway's `files` and `spa` blocks.
 * A path is resolved inside the root only: encoded or plain `..`/`.` segments, backslashes,
 * NUL and encoded slashes are refused, and the real path (symlinks followed) must stay under
 * the real root. A directory asked for with its trailing slash is its index file. Responses
 * carry Content-Type by extension, Content-Length, Last-Modified and a weak ETag, and become
 * 304 for a matching If-None-Match or If-Modified-Since. Each caller adds its own policy
 * (redirects, SPA fallback, caching and security headers, access control) on top.
 */
import { createReadStream, type ReadStream, type Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import { contentTypeFor } from './content-types.js';
import { declareBodyLength } from './body-length.js';

export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Static files answer these methods only. */
export const STATIC_METHODS: readonly string[] = ['GET', 'HEAD'];

/** A regular file found inside a root. */
export interface StaticFile {
  readonly path: string;
  readonly size: number;
  readonly mtime: Date;
}

export type StaticLookup =
  | { readonly kind: 'file'; readonly file: StaticFile }
  /** A directory named without its trailing slash: the caller redirects or falls back. */
  | { readonly kind: 'directory-without-slash' }
  /** Nothing there, a directory without an index file, or a path that tries to leave the root. */
  | { readonly kind: 'missing' };

/** Status, lower-case headers and the body (null for HEAD and 304). */
export interface StaticResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: ReadStream | null;
}

const MISSING: StaticLookup = { kind: 'missing' };

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

/**
 * What `rest` (a URL path under the root, still percent-encoded) names under `root`.
 * `slash` says whether the request path ended with `/`: only then is a directory its `index` file.
 */
export async function lookupStaticFile(root: string, rest: string, { slash, index = 'index.html' }: { slash: boolean; index?: string }): Promise<StaticLookup> {
  const segments = safeSegments(rest);
  if (!segments) return MISSING;
  const found = await resolveInside(root, segments);
  if (!found) return MISSING;
  if (found.info.isDirectory()) {
    if (!slash) return { kind: 'directory-without-slash' };
    const indexFile = await resolveInside(root, [...segments, index]);
    return indexFile?.info.isFile() ? { kind: 'file', file: staticFile(indexFile.path, indexFile.info) } : MISSING;
  }
  return found.info.isFile() ? { kind: 'file', file: staticFile(found.path, found.info) } : MISSING;
}

/** A file the caller named itself (the spa bootstrap file, the dashboard's index.html); null when it is not a readable regular file. */
export async function statStaticFile(path: string): Promise<StaticFile | null> {
  try {
    const info = await stat(path);
    return info.isFile() ? staticFile(path, info) : null;
  } catch {
    return null;
  }
}

/** The response for `file`: 304 when the request's validators match, else 200 (no body for HEAD). */
export function staticFileResponse(file: StaticFile, method: string, headers: RequestHeaders): StaticResponse {
  const lastModified = new Date(Math.floor(file.mtime.getTime() / 1000) * 1000);
  const etag = `W/"${file.size.toString(16)}-${Math.floor(file.mtime.getTime()).toString(16)}"`;
  const out: Record<string, string> = {
    'content-type': contentTypeFor(extname(file.path)),
    'last-modified': lastModified.toUTCString(),
    etag,
  };
  if (notModified(headers, etag, lastModified)) return { status: 304, headers: out, body: null };
  out['content-length'] = String(file.size);
  if (method === 'HEAD') return { status: 200, headers: out, body: null };
  const body = createReadStream(file.path);
  declareBodyLength(body, out['content-length']);
  return { status: 200, headers: out, body };
}

function staticFile(path: string, info: Stats): StaticFile {
  return { path, size: info.size, mtime: info.mtime };
}

/** The real path of `segments` under `root` and its stats, or null when it does not exist or escapes the root. */
async function resolveInside(root: string, segments: readonly string[]): Promise<{ path: string; info: Stats } | null> {
  try {
    const realRoot = await realpath(root);
    const real = await realpath(join(realRoot, ...segments));
    if (real !== realRoot && !real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep)) return null;
    return { path: real, info: await stat(real) };
  } catch {
    return null;
  }
}

function notModified(headers: RequestHeaders, etag: string, lastModified: Date): boolean {
  const inm = headers['if-none-match'];
  if (typeof inm === 'string') return inm.split(',').some((t) => t.trim() === etag || t.trim() === '*' || t.trim() === etag.slice(2));
  const ims = headers['if-modified-since'];
  if (typeof ims === 'string') {
    const since = Date.parse(ims);
    return !Number.isNaN(since) && lastModified.getTime() <= since;
  }
  return false;
}
