/**
 * The access record of one client request (type `gateway_access`), in the field order of
 * docs/gateway.md "Logs". Headers pass the allow-list here and again in the sink.
 */
import type { GatewayLogRecord } from '../contracts.js';
import { isoTime } from './iso-time.js';
import { loggableUrl } from '../../core/loggable-url.js';
import { loggableHeaders, LOGGED_REQUEST_HEADERS, LOGGED_RESPONSE_HEADERS } from './header-allow-list.js';

type Headers = Readonly<Record<string, string | readonly string[] | number | undefined>>;

export interface AccessRecordInput {
  /** Epoch ms of the request's arrival. */
  readonly startedAt: number;
  readonly durationMs: number;
  readonly requestId: string;
  readonly method: string;
  readonly url: URL;
  readonly status: number;
  readonly server: string | null;
  readonly api: string | null;
  readonly endpoint: string | null;
  readonly handler: string | null;
  readonly clientIp: string;
  readonly authUser: string | null;
  readonly requestHeaders: Headers;
  readonly requestBytes: number;
  readonly tls: boolean;
  readonly protocol: string;
  readonly responseHeaders: Headers;
  readonly responseBytes: number;
  readonly errorType: string | null;
  readonly message: string | null;
  readonly custom: Record<string, unknown>;
  /** Overrides the level derived from the outcome (health checks log at debug). */
  readonly level?: GatewayLogRecord['level'];
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;

export function accessRecord(input: AccessRecordInput): GatewayLogRecord {
  const record: Record<string, unknown> = {
    timestamp: isoTime(input.startedAt),
    level: input.level ?? (input.errorType ? 'error' : 'info'),
    type: 'gateway_access',
    uid: input.requestId,
    method: input.method,
    url: loggableUrl(input.url),
    status: input.status,
    server: input.server ?? '',
    api: input.api ?? '',
    endpoint: input.endpoint ?? '',
    handler: input.handler ?? '',
    client_ip: input.clientIp,
    auth_user: input.authUser ?? '',
    request: {
      headers: loggableHeaders(input.requestHeaders, LOGGED_REQUEST_HEADERS),
      bytes: input.requestBytes,
      tls: input.tls,
      proto: input.protocol,
      host: input.url.hostname,
      path: input.url.pathname,
      port: input.url.port === '' ? (input.url.protocol === 'https:' ? 443 : 80) : Number(input.url.port),
    },
    response: { headers: loggableHeaders(input.responseHeaders, LOGGED_RESPONSE_HEADERS), bytes: input.responseBytes },
    timings: { total: round(input.durationMs) },
  };
  if (input.errorType) record.error_type = input.errorType;
  if (input.message) record.message = input.message;
  if (Object.keys(input.custom).length > 0) record.custom = input.custom;
  return record as unknown as GatewayLogRecord;
}
