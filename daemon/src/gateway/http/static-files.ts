/**
 * The gateway's policy for `files` and `spa` on top of the shared static-file server
 * (core/static-files.ts): a directory named without its trailing slash is redirected to its
 * slash form (query kept), a path with no file lets the route fall through, and the spa
 * block always answers with its bootstrap file.
 */
import type { GatewayResponse } from '../contracts.js';
import { lookupStaticFile, staticFileResponse, statStaticFile, type RequestHeaders } from '../../core/static-files.js';

export { STATIC_METHODS } from '../../core/static-files.js';

export interface FileRequest {
  readonly documentRoot: string;
  /** The part of the path under the files base path, as received (encoded). */
  readonly rest: string;
  /** The whole request path as received, for the directory redirect. */
  readonly path: string;
  /** `?...` or "". */
  readonly search: string;
  readonly method: string;
  readonly headers: RequestHeaders;
}

/** The response for a file, a redirect to a directory's slash form, or null when there is no such file. */
export async function serveFile(request: FileRequest): Promise<GatewayResponse | null> {
  const found = await lookupStaticFile(request.documentRoot, request.rest, { slash: request.path.endsWith('/') });
  if (found.kind === 'directory-without-slash') return { status: 301, headers: { location: `${request.path}/${request.search}`, 'content-length': '0' }, body: null };
  if (found.kind === 'missing') return null;
  return staticFileResponse(found.file, request.method, request.headers);
}

/** The spa bootstrap file as the response, whatever the path. */
export async function bootstrapResponse(file: string, method: string, headers: RequestHeaders): Promise<GatewayResponse> {
  const found = await statStaticFile(file);
  if (!found) throw new Error(`the spa bootstrap file ${file} is not a readable file`);
  return staticFileResponse(found, method, headers);
}
