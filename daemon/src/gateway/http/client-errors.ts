/**
 * Answers for clients Node's parser refused or that ran out of time before a request reached
 * the pipeline: 431 (headers too large), 414 (the request line alone too long), 408 (headers
 * not received in time), 400 (anything else unparsable). The answer is the gateway's error page
 * written straight to the socket, which is then closed. An access line is logged when the
 * bytes that failed hold a whole request line, and for a 408 when the client had sent part of
 * a request (a slowloris client; method `-`, the listener's URL) or the request was pipelined
 * behind one just answered (method `-`): a connection that sent nothing (a browser's
 * preconnect, an idle keep-alive) is closed without one.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Settings } from '../config/model.js';
import type { GatewayLogSink, GatewayResponse } from '../contracts.js';
import { DEFAULT_HTML_TEMPLATE } from '../errors/error-template.js';
import { errorResponse } from '../errors/error-response.js';
import { GatewayError } from '../errors/error-types.js';
import { accessRecord } from '../logs/access-record.js';
import { requestUrl } from './forwarded-url.js';
import type { FrontLimits } from './front-limits.js';
import { headerKey } from './header-key.js';
import { requestIdFor } from './request-id.js';
import { clientAddress, localHost } from './client-address.js';

/** The error `clientError` gives: Node's parser codes (HPE_*), ERR_HTTP_REQUEST_TIMEOUT, or a socket error. */
export interface ClientError extends Error {
  readonly code?: string;
  /** The bytes the parser failed on (the current packet), when it failed on bytes. */
  readonly rawPacket?: Buffer;
}

export interface ClientErrorContext {
  readonly settings: Settings;
  readonly limits: FrontLimits;
  readonly logSink: GatewayLogSink;
  /** The connection came in on an https_dev_proxy listener. */
  readonly tls: boolean;
  /** Bytes the connection sent since its last answered request (or since it opened). */
  readonly received: number;
  /**
   * The error is a request's pipelined behind one just answered: the bytes the parser failed on
   * may begin with that one's, so no request line is read from them (method `-`).
   */
  readonly pipelined?: boolean;
}

/** A token, one space, a target, one space, `HTTP/<digit>.<digit>`, end of line: a request line as RFC 9112 writes it. */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([^\s]+) HTTP\/(\d\.\d)\r?\n/;

interface RequestLine {
  readonly method: string;
  readonly target: string;
  readonly version: string;
}

function requestLineOf(packet: Buffer | undefined, limits: FrontLimits): RequestLine | null {
  if (!packet) return null;
  const head = packet.subarray(0, limits.maxUrlBytes + 64).toString('latin1');
  const match = REQUEST_LINE.exec(head);
  return match ? { method: match[1] as string, target: match[2] as string, version: match[3] as string } : null;
}

/** True when the packet starts a request whose target alone is past the URL limit (whether or not its line ended). */
function targetTooLong(packet: Buffer | undefined, limits: FrontLimits): boolean {
  if (!packet) return false;
  const start = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ /.exec(packet.subarray(0, 64).toString('latin1'));
  if (!start) return false;
  const rest = packet.subarray(start[0].length, start[0].length + limits.maxUrlBytes + 1);
  const end = rest.findIndex((byte) => byte === 0x20 || byte === 0x0d || byte === 0x0a);
  return (end === -1 ? rest.length : end) > limits.maxUrlBytes;
}

/** The status and log detail for a client error, or null when there is nobody to answer (the connection failed). */
export function classifyClientError(error: ClientError, limits: FrontLimits): { status: number; detail: string } | null {
  const code = error.code ?? '';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, detail: `the request headers did not arrive within ${limits.headerTimeoutMs}ms (PORTICO_GATEWAY_HEADER_TIMEOUT)` };
  if (code === 'HPE_HEADER_OVERFLOW') {
    if (targetTooLong(error.rawPacket, limits)) return { status: 414, detail: `the request target is longer than ${limits.maxUrlBytes} bytes (PORTICO_GATEWAY_MAX_URL_LENGTH)` };
    return { status: 431, detail: `the request line and headers are larger than ${limits.maxHeaderBytes} bytes (PORTICO_GATEWAY_MAX_HEADER_SIZE)` };
  }
  if (code.startsWith('HPE_')) return { status: 400, detail: `the request could not be parsed: ${code} ${error.message}` };
  return null;
}

/** Answers and closes the connection of a client error that no in-flight request will answer. */
export function answerClientError(error: ClientError, socket: Duplex, ctx: ClientErrorContext): void {
  const outcome = classifyClientError(error, ctx.limits);
  if (!outcome || !socket.writable) {
    socket.destroy();
    return;
  }
  const startedAt = Date.now();
  const line = ctx.pipelined ? null : requestLineOf(error.rawPacket, ctx.limits);
  const { id } = requestIdFor({ requestIdAcceptFromHeader: '', requestIdFormat: ctx.settings.requestIdFormat }, {});
  const method = line?.method ?? 'GET';
  const target = line?.target ?? '/';
  const queryAt = target.indexOf('?');
  const failure = new GatewayError('client_request', outcome.detail, { status: outcome.status });
  const response = errorResponse({ error: failure, template: DEFAULT_HTML_TEMPLATE, requestId: id, path: queryAt === -1 ? target : target.slice(0, queryAt), method });
  if (ctx.settings.requestIdClientHeader !== '') response.headers[headerKey(ctx.settings.requestIdClientHeader)] = id;
  response.headers.connection = 'close';
  const bytes = writeRaw(socket, response);
  // Without a request line, only a stalled partial request or a pipelined one is worth a line: its method and target are unknown.
  const stalled = !line && outcome.status === 408 && ctx.received > 0;
  if (!line && !stalled && !ctx.pipelined) return;
  const tcp = socket as Socket;
  const fallbackHost = localHost(tcp, 0);
  ctx.logSink.write(
    accessRecord({
      startedAt,
      durationMs: 0,
      requestId: id,
      method: line ? method : '-',
      url: requestUrl(ctx.settings, {}, target, fallbackHost, ctx.tls ? 'https' : 'http'),
      status: response.status,
      server: null,
      api: null,
      endpoint: null,
      handler: null,
      clientIp: clientAddress(tcp),
      authUser: null,
      requestHeaders: {},
      requestBytes: line || ctx.pipelined ? 0 : ctx.received,
      tls: ctx.tls,
      protocol: line ? `HTTP/${line.version}` : '-',
      responseHeaders: response.headers,
      responseBytes: bytes,
      errorType: failure.kind,
      message: line ? failure.detail : ctx.pipelined ? `${failure.detail}; a request pipelined behind an answered one` : `${failure.detail}; ${ctx.received} bytes of a request received`,
      custom: {},
    }),
  );
}

/** Writes an HTTP/1.1 response and closes the socket once it is out; returns the body bytes. */
function writeRaw(socket: Duplex, response: GatewayResponse): number {
  const body = Buffer.isBuffer(response.body) ? response.body : Buffer.alloc(0);
  let head = `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}\r\ndate: ${new Date().toUTCString()}\r\n`;
  for (const [name, value] of Object.entries(response.headers)) {
    for (const one of Array.isArray(value) ? value : [value]) head += `${name}: ${one}\r\n`;
  }
  // The server keeps sockets half-open; a client that neither reads nor closes must not keep this one.
  socket.once('finish', () => socket.destroy());
  setTimeout(() => socket.destroy(), 1000).unref();
  socket.end(Buffer.concat([Buffer.from(`${head}\r\n`, 'latin1'), body]));
  return body.length;
}
