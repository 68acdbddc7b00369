/**
 * The `common` log format: one line per record, Apache-like for access lines.
 *
 *   access:  <client_ip> - <auth_user|-> [<timestamp>] "<METHOD> <url>" <status> <bytes|-> <total>ms id=<uid> handler=<h> [server=..] [api=..] [endpoint=..] [error_type=.. message=".."] [custom={..}]
 *   backend: [<timestamp>] backend <name> "<METHOD> <url>" <status|-> <total>ms ttfb=<ms> id=<uid> handler=<h> [error_type=.. message=".."]
 *   daemon:  [<timestamp>] <LEVEL> <message> key=value...
 */
import type { BackendLogInput } from '../backend/backend-log.js';
import type { GatewayLogRecord } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import type { AccessRecordInput } from './access-record.js';
import { isoTime } from './iso-time.js';
import { loggableUrl } from '../../core/loggable-url.js';

export function formatCommonLine(record: GatewayLogRecord): string {
  switch (record.type) {
    case 'gateway_access':
      return accessLine(record);
    case 'gateway_backend':
      return backendLine(record);
    default:
      return daemonLine(record);
  }
}

function accessLine(r: GatewayLogRecord): string {
  const response = asObject(r.response);
  const timings = asObject(r.timings);
  const head = `${text(r.client_ip)} - ${text(r.auth_user)} [${r.timestamp}] "${text(r.method)} ${text(r.url)}" ${text(r.status)} ${text(response.bytes)} ${ms(timings.total)}`;
  return [head, ...pairs(r, ['uid:id', 'handler', 'server', 'api', 'endpoint', 'error_type', 'message']), ...customPair(r)].join(' ');
}

/**
 * The access line of `input` without building its record first (the hot path): the same text
 * as formatCommonLine(accessRecord(input)) for an input without custom fields. Every `+` of two
 * strings is a node V8 allocates now and walks again when the line is encoded, so the pieces
 * that repeat from request to request (the route's names, the method, the status) come from
 * strings made once (`routeTail`, `methodPiece`, `statusPiece`).
 */
export function accessLineOf(input: AccessRecordInput): string {
  const auth = input.authUser;
  let line =
    text(input.clientIp) +
    (!auth ? ' - - [' : ` - ${auth} [`) +
    isoTime(input.startedAt) +
    methodPiece(input.method) +
    text(loggableUrl(input.url)) +
    statusPiece(input.status) +
    input.responseBytes +
    ' ' +
    ms(Math.round(input.durationMs * 1000) / 1000);
  if (input.requestId) line += ' id=' + quoteId(input.requestId);
  line += routeTail(input.handler, input.server, input.api, input.endpoint);
  if (input.errorType) line += ` error_type=${quote(input.errorType)}`;
  if (input.message) line += ` message=${quote(input.message)}`;
  return line;
}

/** The backend line of `input` without building its record first: the same text as formatCommonLine(backendLogRecord(input)) without custom fields. */
export function backendLineOf(input: BackendLogInput): string {
  const { error, timings } = input;
  let line = '[' + isoTime(input.startedAt) + backendPiece(input.backend, input.method) + text(loggableUrl(input.url)) + statusPiece(input.status) + ms(timings.total);
  if (timings.ttfb !== null) line += ' ttfb=' + ms(timings.ttfb);
  if (input.requestId) line += ' id=' + quoteId(input.requestId);
  if (input.handler) line += handlerPiece(input.handler);
  if (error instanceof GatewayError) {
    if (error.kind) line += ` error_type=${quote(error.kind)}`;
    if (error.detail) line += ` message=${quote(error.detail)}`;
  } else if (error?.message) line += ` message=${quote(error.message)}`;
  return line;
}

/**
 * Strings made once for the pieces of a line that repeat: few of each (they come from the
 * configuration or the protocol), so each table is bounded and, once full, the rest are made
 * each time.
 */
const PIECES_MAX = 1024;

/** `piece` kept in `table` under `key` while the table has room; `piece` either way. */
function keep(table: Map<string, string>, key: string, piece: string): string {
  if (table.size < PIECES_MAX) table.set(key, piece);
  return piece;
}

const methods = new Map<string, string>();
/** `] "GET ` (the end of the time, then the request's method). */
function methodPiece(method: string): string {
  return methods.get(method) ?? keep(methods, method, `] "${text(method)} `);
}

const backends = new Map<string, Map<string, string>>();
/** Pieces kept in all of `backends`' tables together (a method may come from an expression). */
let backendPieces = 0;
/** `] backend <name> "GET ` (the end of the time, the backend's name, the request's method). */
function backendPiece(name: string, method: string): string {
  let byMethod = backends.get(name);
  const piece = byMethod?.get(method);
  if (piece !== undefined) return piece;
  const made = `] backend ${text(name)} "${text(method)} `;
  if (backendPieces < PIECES_MAX) {
    if (byMethod === undefined) backends.set(name, (byMethod = new Map()));
    byMethod.set(method, made);
    backendPieces++;
  }
  return made;
}

const handlers = new Map<string, string>();
function handlerPiece(handler: string): string {
  return handlers.get(handler) ?? keep(handlers, handler, ` handler=${quoteName(handler)}`);
}

/** `" 200 ` for each status (the end of the URL's quotes, the status, a space); `" - ` for none. */
const STATUS_PIECES: (string | undefined)[] = [];
function statusPiece(status: number | null): string {
  if (status === null) return '" - ';
  if (Number.isInteger(status) && status >= 0 && status < 1000) return (STATUS_PIECES[status] ??= `" ${status} `);
  return `" ${text(status)} `;
}

/** ` handler=.. server=.. api=.. endpoint=..` of one route, made once: the last one used, then a table by endpoint. */
interface RouteTail {
  readonly handler: string | null;
  readonly server: string | null;
  readonly api: string | null;
  readonly endpoint: string | null;
  readonly text: string;
}
let lastTail: RouteTail | null = null;
const tails = new Map<string | null, RouteTail[]>();
let tailCount = 0;

function routeTail(handler: string | null, server: string | null, api: string | null, endpoint: string | null): string {
  const last = lastTail;
  if (last !== null && last.endpoint === endpoint && last.server === server && last.handler === handler && last.api === api) return last.text;
  const same = tails.get(endpoint);
  if (same !== undefined) {
    for (const tail of same) {
      if (tail.server === server && tail.handler === handler && tail.api === api) {
        lastTail = tail;
        return tail.text;
      }
    }
  }
  let names = '';
  if (handler) names += ` handler=${quoteName(handler)}`;
  if (server) names += ` server=${quoteName(server)}`;
  if (api) names += ` api=${quoteName(api)}`;
  if (endpoint) names += ` endpoint=${quoteName(endpoint)}`;
  if (tailCount < PIECES_MAX) {
    const tail: RouteTail = { handler, server, api, endpoint, text: names };
    tailCount++;
    if (same === undefined) tails.set(endpoint, [tail]);
    else same.push(tail);
    lastTail = tail;
  }
  return names;
}

function backendLine(r: GatewayLogRecord): string {
  const timings = asObject(r.timings);
  const head = `[${r.timestamp}] backend ${text(r.backend)} "${text(r.method)} ${text(r.url)}" ${text(r.status)} ${ms(timings.total)}`;
  const extra = timings.ttfb === undefined || timings.ttfb === null ? [] : [`ttfb=${ms(timings.ttfb)}`];
  return [head, ...extra, ...pairs(r, ['uid:id', 'handler', 'error_type', 'message']), ...customPair(r)].join(' ');
}

function daemonLine(r: GatewayLogRecord): string {
  const skip = new Set(['timestamp', 'level', 'type', 'message']);
  const rest = Object.entries(r)
    .filter(([k, v]) => !skip.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${quote(v)}`);
  return [`[${r.timestamp}] ${r.level.toUpperCase()} ${text(r.message)}`, ...rest].join(' ');
}

/** `field` or `field:label` pairs for the fields that are set. */
function pairs(r: GatewayLogRecord, fields: readonly string[]): string[] {
  const out: string[] = [];
  for (const spec of fields) {
    const [field, label = field] = spec.split(':') as [string, string?];
    const value = r[field];
    if (value === undefined || value === null || value === '') continue;
    out.push(`${label}=${quote(value)}`);
  }
  return out;
}

function customPair(r: GatewayLogRecord): string[] {
  const custom = r.custom;
  if (!custom || typeof custom !== 'object' || Object.keys(custom).length === 0) return [];
  return [`custom=${JSON.stringify(custom)}`];
}

function text(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  return String(value);
}

/** A request's id, quoted once for its two lines (the backend line, then the access line, take the same string). */
let lastId = '';
let lastIdText = '';

function quoteId(id: string): string {
  if (id !== lastId) {
    lastIdText = quote(id);
    lastId = id;
  }
  return lastIdText;
}

/** Names from the configuration (handler, server, api, endpoint): few, and the same on every line, so each is quoted once. */
const quotedNames = new Map<string, string>();

function quoteName(name: string): string {
  // Bounded as the other kept pieces: a configuration with more names quotes the rest each time.
  return quotedNames.get(name) ?? keep(quotedNames, name, quote(name));
}

function quote(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

/**
 * A duration with one decimal: `toFixed(1)` from the integer count of tenths, which costs a
 * fraction of it (`toFixed` and `quote` were a third of formatting a request's two lines), and
 * the text of each count below one second made once. A value `toFixed` would show with an
 * exponent, or a negative one, goes through `toFixed`.
 */
const MS_KEPT = 10_000;
const MS_TEXTS: (string | undefined)[] = [];

function ms(value: unknown): string {
  if (typeof value !== 'number') return '-';
  const tenths = Math.round(value * 10);
  if (tenths >= 0 && tenths < MS_KEPT) return (MS_TEXTS[tenths] ??= tenthsText(tenths));
  if (!(tenths >= 0 && tenths < 1e15)) return `${value.toFixed(1)}ms`;
  return tenthsText(tenths);
}

function tenthsText(tenths: number): string {
  const whole = Math.floor(tenths / 10);
  return `${whole}.${tenths - whole * 10}ms`;
}

function asObject(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
