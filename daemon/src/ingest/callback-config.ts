import { z } from 'zod';
import { ApiError, validationError } from './api-error.js';
import type { CallbackConfig } from './types.js';

/** Headers the service sets itself; a callback may not carry them (spec + Standard Webhooks + framing). */
export const RESERVED_CALLBACK_HEADERS = [
  'x-service-signature',
  'x-service-event',
  'x-service-job-id',
  'content-type',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
] as const;

const MAX_HEADERS = 20;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const callbackUrlSchema = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
      return;
    }
    if (url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must be an https:// URL' });
    else if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not carry credentials; use callback headers or a secret' });
    else if (url.hash) ctx.addIssue({ code: 'custom', message: 'must not have a #fragment' });
  });

export const callbackSecretSchema = z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters');

export const callbackHeadersSchema = z
  .record(z.string(), z.string({ error: 'header values must be strings' }).max(4096, 'header values must be at most 4096 characters'))
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > MAX_HEADERS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_HEADERS} headers` });
    const seen = new Set<string>();
    for (const name of names) {
      const lower = name.toLowerCase();
      if (!HEADER_NAME.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'is not a valid header name' });
      else if ((RESERVED_CALLBACK_HEADERS as readonly string[]).includes(lower)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'is reserved: the service sets it on every callback' });
      } else if (seen.has(lower)) ctx.addIssue({ code: 'custom', path: [name], message: 'is given twice (header names ignore case)' });
      if (/[\r\n\0]/.test(headers[name] ?? '')) ctx.addIssue({ code: 'custom', path: [name], message: 'value must not contain CR, LF or NUL' });
      seen.add(lower);
    }
  });

/** The callback of a job creation JSON body (`callback`). */
export const jsonCallbackSchema = z
  .strictObject({
    url: callbackUrlSchema,
    secret: callbackSecretSchema.nullish(),
    headers: callbackHeadersSchema.nullish(),
  })
  .nullish();

/** The raw pieces a request supplied, each from whichever form won. */
export interface SuppliedCallback {
  url: string | undefined;
  secret: string | undefined;
  /** JSON object text, as the upload route receives it. */
  headersText: string | undefined;
}

/**
 * The upload route: form fields win over the X-Service-Callback-* headers, field by field;
 * the field names in errors say where each value came from.
 */
export function resolveUploadCallback(
  form: { url?: string | undefined; secret?: string | undefined; headers?: string | undefined },
  request: { url?: string | undefined; secret?: string | undefined; headers?: string | undefined },
  fallback: CallbackConfig | null,
): CallbackConfig | null {
  const pick = (formValue: string | undefined, formName: string, headerValue: string | undefined, headerName: string) =>
    formValue !== undefined && formValue !== '' ? { value: formValue, field: formName } : headerValue !== undefined && headerValue !== '' ? { value: headerValue, field: headerName } : undefined;
  const url = pick(form.url, 'callback_url', request.url, 'X-Service-Callback-Url');
  const secret = pick(form.secret, 'callback_secret', request.secret, 'X-Service-Callback-Secret');
  const headers = pick(form.headers, 'callback_headers', request.headers, 'X-Service-Callback-Headers');
  if (!url) {
    if (secret || headers) {
      const field = (secret ?? headers)!.field;
      throw new ApiError('validation_failed', `${field}: given without a callback URL (callback_url or X-Service-Callback-Url)`, [{ field, message: 'given without a callback URL' }]);
    }
    return fallback;
  }
  const parsedUrl = callbackUrlSchema.safeParse(url.value);
  if (!parsedUrl.success) throw validationError(parsedUrl.error, url.field);
  const parsedSecret = secret ? callbackSecretSchema.safeParse(secret.value) : undefined;
  if (parsedSecret && !parsedSecret.success) throw validationError(parsedSecret.error, secret!.field);
  let headerObject: Record<string, string> = {};
  if (headers) {
    let raw: unknown;
    try {
      raw = JSON.parse(headers.value);
    } catch {
      throw new ApiError('validation_failed', `${headers.field}: is not valid JSON; send a JSON object of header names to values`, [{ field: headers.field, message: 'is not valid JSON' }]);
    }
    const parsedHeaders = callbackHeadersSchema.safeParse(raw);
    if (!parsedHeaders.success) throw validationError(parsedHeaders.error, headers.field);
    headerObject = parsedHeaders.data;
  }
  return { url: parsedUrl.data, secret: parsedSecret?.data ?? null, headers: headerObject };
}

/** The JSON route: `callback` given (with its url) replaces the default bundle as a whole. */
export function resolveJsonCallback(callback: z.infer<typeof jsonCallbackSchema>, fallback: CallbackConfig | null): CallbackConfig | null {
  if (!callback) return fallback;
  return { url: callback.url, secret: callback.secret ?? null, headers: callback.headers ?? {} };
}
