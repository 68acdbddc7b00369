/**
 * Turns a GatewayError into the client response: the status, the synopsis (never the
 * detail) in `Gateway-Error`, and a body from the template of the block the request was in.
 */
import type { GatewayResponse } from '../contracts.js';
import { defaultTemplate, type ErrorTemplate } from './error-template.js';
import type { GatewayError } from './error-types.js';

export const ERROR_HEADER = 'gateway-error';

export interface ErrorResponseInput {
  readonly error: GatewayError;
  readonly template: ErrorTemplate;
  readonly requestId: string;
  /** The request path as received (escaped, no query). */
  readonly path: string;
  readonly method: string;
}

export function errorResponse({ error, template, requestId, path, method }: ErrorResponseInput): GatewayResponse {
  const values = { http_status: error.status, message: error.synopsis, path, request_id: requestId };
  let body: string;
  let type = template.type;
  try {
    body = template.render(values);
  } catch {
    // A custom template that fails falls back to the default of the same type.
    const fallback = defaultTemplate(template.type);
    type = fallback.type;
    body = fallback.render(values);
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(error.headers)) headers[name.toLowerCase()] = value;
  headers['content-type'] = type === 'json' ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8';
  headers['cache-control'] = 'no-store';
  headers[ERROR_HEADER] = error.synopsis;
  const bytes = Buffer.from(body, 'utf8');
  headers['content-length'] = String(bytes.length);
  return { status: error.status, headers, body: method === 'HEAD' ? null : bytes };
}
