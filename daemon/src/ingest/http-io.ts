import type { IncomingMessage } from 'node:http';
import { ApiError } from './api-error.js';
import type { Scope } from './types.js';

const SCOPE_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** X-Tenant-Id + X-Workspace-Id: missing is 401, malformed is 400 naming the header. */
export function requestScope(req: IncomingMessage): Scope {
  const tenantId = single(req, 'x-tenant-id');
  const workspaceId = single(req, 'x-workspace-id');
  if (!tenantId || !workspaceId) {
    const missing = [!tenantId && 'X-Tenant-Id', !workspaceId && 'X-Workspace-Id'].filter(Boolean) as string[];
    throw new ApiError('tenant_headers_missing', `missing ${missing.join(' and ')}: every request must name its tenant and workspace`, missing.map((h) => ({ field: h, message: 'is required' })));
  }
  for (const [header, value] of [['X-Tenant-Id', tenantId], ['X-Workspace-Id', workspaceId]] as const) {
    if (!SCOPE_ID.test(value)) throw new ApiError('validation_failed', `${header}: must be 1-128 letters, digits or . _ : @ -`, [{ field: header, message: 'malformed' }]);
  }
  return { tenantId, workspaceId };
}

/** A request header given once (repeated headers are joined by Node; we refuse those). */
export function single(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  if (Array.isArray(value)) return value[0]?.trim();
  return value?.trim() || undefined;
}

/**
 * The body as it arrives, refusing more than `maxBytes` with 413: at once when Content-Length says
 * so, else as soon as the count passes it. Stopping early leaves the request open (paused), so the
 * error can still be answered; the server drains or closes it after the response.
 */
export async function* bodyChunks(req: IncomingMessage, maxBytes: number): AsyncGenerator<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw new ApiError('payload_too_large', `request body is ${declared} bytes; the limit is ${maxBytes}`);
  let size = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new ApiError('payload_too_large', `request body exceeds the limit of ${maxBytes} bytes`);
    yield chunk;
  }
}

/** The whole body, refusing more than `maxBytes` with 413 (checked as it streams). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of bodyChunks(req, maxBytes)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  if (mediaType(req) !== 'application/json') throw new ApiError('unsupported_media_type', `send the body as application/json (got ${req.headers['content-type'] ?? 'no Content-Type'})`);
  const body = await readBody(req, maxBytes);
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch (error) {
    throw new ApiError('bad_json', `the body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Integer query parameter within bounds, else 400 naming it. */
export function queryInt(url: URL, name: string, fallback: number, min: number, max: number): number {
  const text = url.searchParams.get(name);
  if (text === null || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new ApiError('validation_failed', `${name}: must be an integer from ${min} to ${max}`, [{ field: name, message: `must be an integer from ${min} to ${max}` }]);
  return n;
}

/** An enumerated query parameter, else 400 listing the choices. */
export function queryEnum<T extends string>(url: URL, name: string, choices: readonly T[]): T | undefined {
  const text = url.searchParams.get(name);
  if (text === null || text === '') return undefined;
  if (!(choices as readonly string[]).includes(text)) throw new ApiError('validation_failed', `${name}: must be one of ${choices.join(', ')}`, [{ field: name, message: `must be one of ${choices.join(', ')}` }]);
  return text as T;
}
