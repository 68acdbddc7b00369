/** method_id of the infosessions listing in the real API's `resources` service. */
export const METHOD_ID = 1129;

/** Every status the endpoint answers with and its message (../shared/reference/services.md). */
export const STATUS_MESSAGES = {
  200: 'Request successful',
  204: 'No data returned',
  400: 'Invalid callback: must be a JavaScript identifier path such as cb or app.cb',
  401: 'Invalid API key',
  403: 'The provided API key has been banned',
  405: 'Method not allowed: use GET or HEAD',
  429: 'API request limit reached',
  501: 'Invalid method',
  511: 'API key is required (?key=)',
} as const;
export type EnvelopeStatus = keyof typeof STATUS_MESSAGES;

export interface Meta {
  requests: number;
  timestamp: number;
  status: EnvelopeStatus;
  message: string;
  method_id: number;
  method: Record<string, never>;
}

export function meta(status: EnvelopeStatus, requests: number, nowMs: number): Meta {
  return { requests, timestamp: Math.floor(nowMs / 1000), status, message: STATUS_MESSAGES[status], method_id: METHOD_ID, method: {} };
}

/** HTTP status of an envelope: its meta.status, except 204 which is sent as 200 so the body arrives. */
export function httpStatus(status: EnvelopeStatus): number {
  return status === 204 ? 200 : status;
}

const CALLBACK = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
export function isCallbackName(name: string): boolean {
  return name.length <= 128 && CALLBACK.test(name);
}

/** Made once per reload: JSON safe to embed in JSONP too (U+2028/2029 escaped, still valid JSON). */
export function jsonDataBytes(records: readonly unknown[]): Buffer {
  return Buffer.from(JSON.stringify(records).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029'), 'utf8');
}

export type Format = 'json' | 'xml';

/**
 * What goes around the data of one answer. The data (megabytes for a big file) is rendered once
 * per reload and written as it is; only the envelope is made per call.
 */
export function envelopeParts(format: Format, m: Meta, callback: string | null): { prefix: string; suffix: string; contentType: string } {
  if (format === 'xml') {
    return { prefix: `<?xml version="1.0" encoding="UTF-8"?>\n<response>\n${xmlValue('meta', m, '  ')}`, suffix: '</response>\n', contentType: 'application/xml; charset=utf-8' };
  }
  const json = { prefix: `{"meta":${JSON.stringify(m)},"data":`, suffix: '}' };
  if (callback === null) return { ...json, contentType: 'application/json; charset=utf-8' };
  return { prefix: `${callback}(${json.prefix}`, suffix: `${json.suffix});`, contentType: 'application/javascript; charset=utf-8' };
}

/** XML of one value: objects become child elements, lists `<item>`s, null an empty element. */
export function xmlValue(name: string, value: unknown, indent: string): string {
  if (value === null || value === undefined) return `${indent}<${name}></${name}>\n`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}<${name}></${name}>\n`;
    return `${indent}<${name}>\n${value.map((v) => xmlValue('item', v, `${indent}  `)).join('')}${indent}</${name}>\n`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return `${indent}<${name}></${name}>\n`;
    return `${indent}<${name}>\n${entries.map(([k, v]) => xmlValue(k, v, `${indent}  `)).join('')}${indent}</${name}>\n`;
  }
  return `${indent}<${name}>${escapeXml(String(value))}</${name}>\n`;
}

/** The `<data>` element for a list of records (rendered once per reload). */
export function renderXmlData(records: readonly unknown[]): string {
  return xmlValue('data', records, '  ');
}

/** Escapes markup characters and drops characters XML 1.0 cannot carry. */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}
