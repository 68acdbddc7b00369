import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import { PorticoError, type ErrorCategory } from '../core/errors.js';

export const API_ERROR_CODES = {
  validation_failed: 400,
  bad_json: 400,
  tenant_headers_missing: 401,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
} as const;
export type ApiErrorCode = keyof typeof API_ERROR_CODES;

export interface ApiErrorDetail {
  /** Dotted path of the offending field, e.g. `callback.headers.Content-Type`. */
  field: string;
  message: string;
}

/** An error the ingest API answers with: `{"error":{"code","message","details"}}`. */
export class ApiError extends PorticoError {
  override name = 'ApiError';
  declare readonly code: ApiErrorCode;
  readonly status: number;
  constructor(
    code: ApiErrorCode,
    message: string,
    readonly details: readonly ApiErrorDetail[] = [],
  ) {
    super(code, message, { category: categoryOfStatus(API_ERROR_CODES[code]) });
    this.status = API_ERROR_CODES[code];
  }
}

function categoryOfStatus(status: number): ErrorCategory {
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 401) return 'forbidden';
  return 'invalid';
}

/** A zod failure as a 400 naming each field; `prefix` is where the parsed object sits. */
export function validationError(error: z.ZodError, prefix = ''): ApiError {
  const details = error.issues.map((issue) => ({ field: joinPath(prefix, issue.path), message: issue.message }));
  const first = details[0];
  const summary = first ? `${first.field || 'body'}: ${first.message}` : 'invalid request';
  return new ApiError('validation_failed', details.length > 1 ? `${summary} (and ${details.length - 1} more)` : summary, details);
}

export function fieldError(field: string, message: string, code: ApiErrorCode = 'validation_failed'): ApiError {
  return new ApiError(code, `${field}: ${message}`, [{ field, message }]);
}

function joinPath(prefix: string, path: readonly PropertyKey[]): string {
  return [prefix, ...path.map(String)].filter((p) => p !== '').join('.');
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers }).end(text);
}

export function sendApiError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, { error: { code: error.code, message: error.message, details: error.details } });
}
