/**
 * One request to a backend over undici's dispatch API: streams the request body out and
 * the response body back (with backpressure), enforces the total deadline (`timeout`, which
 * also cuts a hanging body), follows the caller's cancellation (or abort signal), and writes
 * the backend log record once the exchange ended or failed. A small body of known length
 * (up to SMALL_BODY_BYTES) is read whole before the response is given, so it can be answered
 * in one write without a stream.
 */
import { performance } from 'node:perf_hooks';
import { Readable, Transform, pipeline } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { BackendRequest, BackendResponse, BackendTimings, GatewayLogRecord, RequestCancel } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { backendError, formatMs, type ErrorContext } from './backend-errors.js';
import { backendLogRecord, type BackendLogInput } from './backend-log.js';
import { awaitSocketTimings, round, type ConnectTimings } from './connection-timings.js';
import { rawResponseHeaders, withoutHopByHop, type OutgoingHeaders } from './headers.js';
import { announcedTrailers, carryTrailers, forwardableTrailers, type ForwardedTrailers, type RawTrailers } from './trailers.js';
import { declareBodyLength } from '../../core/body-length.js';
import { PorticoError } from '../../core/errors.js';

export interface ExchangeOptions {
  readonly dispatcher: Dispatcher;
  readonly backend: string;
  readonly errors: ErrorContext;
  /** Total deadline in ms; 0 for none. */
  readonly timeout: number;
  readonly ttfbTimeout: number;
  readonly reset: boolean;
  readonly servername: string | null;
  readonly log: ((record: GatewayLogRecord) => void) | null;
  /** Takes the record by its parts instead of `log` (a sink that builds it only when it writes it). */
  readonly logEntry?: ((entry: BackendLogInput) => void) | null;
}

/** Bodies up to this size with a Content-Length are read whole before the response is given. */
export const SMALL_BODY_BYTES = 64 * 1024;

/** The reader closed the response body before its end: logged, but not a backend failure. */
class BodyClosedByReader extends PorticoError {
  constructor(cause: Error | null) {
    super('body_closed_by_reader', `canceled: the response body was closed before its end${cause ? ` (${cause.message})` : ''}`, cause ? { cause } : undefined);
  }
}

/**
 * The origin of the last backend request, kept: an equal origin is passed as that same string,
 * whose hash V8 has computed already, so the dispatcher's lookups by origin (two maps) do not
 * hash a fresh string for every request (about 1,000 instructions, counted with callgrind).
 */
let lastOrigin = '';

function knownOrigin(origin: string): string {
  if (origin === lastOrigin) return lastOrigin;
  lastOrigin = origin;
  return origin;
}

/**
 * undici's raw handler interface (onConnect, onHeaders, onData, onComplete, onError): the response
 * head comes as the raw list of names and values, turned into the contract's headers in one pass
 * (rawResponseHeaders). A handler of the newer interface (onRequestStart, onResponseStart...)
 * would be wrapped by undici in an adapter that builds a header object and a trailer object per
 * response first (docs/gateway.md, "Performance").
 */
export class BackendExchange implements Dispatcher.DispatchHandler {
  readonly #options: ExchangeOptions;
  readonly #request: BackendRequest;
  readonly #headers: OutgoingHeaders;
  readonly #startedAt = Date.now();
  readonly #start = performance.now();
  /** Aborts the request in undici, once it was handed to a connection (onConnect). */
  #abort: ((reason: Error) => void) | null = null;
  /** Resumes a paused response (given with the head). */
  #resume: (() => void) | null = null;
  #paused = false;
  #abortReason: Error | null = null;
  #sentAt: number | null = null;
  #connect: ConnectTimings | null = null;
  #ttfb: number | null = null;
  #requestBytes = 0;
  #responseBytes = 0;
  #status: number | null = null;
  #responseHeaders: OutgoingHeaders | null = null;
  #protocol: string | null = null;
  #body: ResponseBody | null = null;
  /** A streamed body's trailers: what the backend announced, then what it sent. */
  #trailers: ForwardedTrailers | null = null;
  /** The chunks of a small body read whole, or null when the body streams. */
  #chunks: Buffer[] | null = null;
  #timer: NodeJS.Timeout | null = null;
  #finished = false;
  #resolve!: (response: BackendResponse) => void;
  #reject!: (error: Error) => void;
  /** The caller's cancellation this exchange follows, and its listener there. */
  #cancel: RequestCancel | null = null;
  #onCancel: ((reason: Error) => void) | null = null;
  #unlistenSignal: (() => void) | null = null;

  constructor(options: ExchangeOptions, request: BackendRequest) {
    this.#options = options;
    this.#request = request;
    this.#headers = withoutHopByHop(request.headers);
  }

  /** Sends the request; resolves with the response head once it arrives. */
  run(): Promise<BackendResponse> {
    const promise = new Promise<BackendResponse>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    if (!this.#followCancellation()) return promise;
    if (this.#options.timeout > 0) {
      this.#timer = setTimeout(() => {
        const { origin } = this.#options.errors;
        this.#fail(new GatewayError('backend_timeout', `${origin}: timeout after ${formatMs(this.#options.timeout)}`, { source: this.#options.backend }));
      }, this.#options.timeout);
      this.#timer.unref();
    }
    const { url, method } = this.#request;
    const options = {
      origin: knownOrigin(url.origin),
      path: `${url.pathname}${url.search}`,
      method,
      headers: this.#headers,
      body: this.#countedBody(),
      headersTimeout: this.#options.ttfbTimeout,
      bodyTimeout: 0,
      ...(this.#options.reset ? { reset: true } : {}),
      // Not in undici's option types, but its Request takes it: the TLS name of a static `hostname`.
      ...(this.#options.servername ? { servername: this.#options.servername } : {}),
    } as Dispatcher.DispatchOptions;
    try {
      this.#options.dispatcher.dispatch(options, this);
    } catch (error) {
      this.onError(error as Error);
    }
    return promise;
  }

  /** Fails the exchange when the caller cancels; false when it already did. */
  #followCancellation(): boolean {
    const { cancel } = this.#request;
    if (cancel) {
      if (cancel.reason) {
        this.#fail(canceled(cancel.reason, this.#options.backend));
        return false;
      }
      this.#cancel = cancel;
      this.#onCancel = (reason: Error): void => this.#fail(canceled(reason, this.#options.backend));
      cancel.listen(this.#onCancel);
      return true;
    }
    const { signal } = this.#request;
    if (signal.aborted) {
      this.#fail(canceled(signal.reason, this.#options.backend));
      return false;
    }
    const onAbort = () => this.#fail(canceled(signal.reason, this.#options.backend));
    signal.addEventListener('abort', onAbort, { once: true });
    this.#unlistenSignal = () => signal.removeEventListener('abort', onAbort);
    return true;
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.#abort = abort;
    if (this.#abortReason) {
      abort(this.#abortReason);
      return;
    }
    this.#sentAt = performance.now();
    awaitSocketTimings((timings, protocol) => {
      this.#connect = timings;
      this.#protocol = protocol;
    });
  }

  /** The response head; false pauses the response (never here: the body is not read yet). */
  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx informational answers (103 Early Hints) precede the real one.
    if (statusCode < 200 || this.#finished) return true;
    this.#resume = resume;
    this.#ttfb = this.#sentAt === null ? null : round(performance.now() - this.#sentAt);
    this.#status = statusCode;
    this.#responseHeaders = rawResponseHeaders(rawHeaders);
    if (this.#small(statusCode, this.#responseHeaders)) {
      this.#chunks = [];
      return true;
    }
    this.#body = new ResponseBody(this);
    const length = this.#responseHeaders['content-length'];
    declareBodyLength(this.#body, typeof length === 'string' ? length : null);
    this.#trailers = { announced: announcedTrailers(rawHeaders), values: null };
    carryTrailers(this.#body, this.#trailers);
    this.#resolve({ status: statusCode, headers: this.#responseHeaders, body: this.#body });
    return true;
  }

  /** A body worth reading whole first: a Content-Length up to SMALL_BODY_BYTES, on an answer that has a body. */
  #small(status: number, headers: OutgoingHeaders): boolean {
    if (status === 204 || status === 304 || this.#request.method === 'HEAD') return false;
    const length = headers['content-length'];
    if (typeof length !== 'string') return false;
    const bytes = Number(length);
    return bytes >= 0 && bytes <= SMALL_BODY_BYTES;
  }

  /** A piece of the body; false pauses undici until the reader asks for more (resumeBody). */
  onData(chunk: Buffer): boolean {
    this.#responseBytes += chunk.length;
    if (this.#chunks) this.#chunks.push(chunk);
    else if (this.#body && !this.#body.push(chunk)) this.#paused = true;
    return !this.#paused;
  }

  /** The body's end, with the trailers that followed it (undici: a raw list over HTTP/1.1, an object over HTTP/2). */
  onComplete(rawTrailers?: RawTrailers | null): void {
    if (this.#finished) return;
    if (this.#trailers && rawTrailers) this.#trailers.values = forwardableTrailers(rawTrailers);
    this.#body?.push(null);
    const chunks = this.#chunks;
    this.#finish(null);
    if (chunks) this.#resolve(new WholeResponse(this.#status ?? 200, this.#responseHeaders ?? {}, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
  }

  onError(error: Error): void {
    if (this.#finished) return;
    const failure = error instanceof BodyClosedByReader ? error : backendError(error, this.#options.errors);
    this.#finish(failure);
    if (!this.#body) this.#reject(failure);
    else if (!this.#body.destroyed) this.#body.destroy(failure);
  }

  /** The reader wants more of the body. */
  resumeBody(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#resume?.();
  }

  /** The reader destroyed the body (with an error or before its end). */
  bodyClosed(error: Error | null): void {
    if (this.#finished) return;
    const reason = error instanceof GatewayError ? error : new BodyClosedByReader(error);
    this.#finish(reason);
    this.#abort?.(reason);
  }

  /** A deadline or the caller's signal ends the exchange, wherever it is. */
  #fail(reason: Error): void {
    if (this.#finished) return;
    this.#abortReason = reason;
    // Before undici started the request (it may wait for a free connection), nothing to abort yet:
    // answer now, and onConnect aborts it when its turn comes.
    if (this.#abort) this.#abort(reason);
    if (!this.#finished) this.onError(reason);
  }

  #countedBody(): Readable | Buffer | string | null {
    const { body } = this.#request;
    if (body === null) return null;
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      this.#requestBytes = Buffer.byteLength(body);
      return body;
    }
    const counter = new Transform({
      transform: (chunk: Buffer | string, _encoding, callback) => {
        this.#requestBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
        callback(null, chunk);
      },
    });
    pipeline(body, counter, () => {});
    return counter;
  }

  #finish(error: Error | null): void {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#onCancel) this.#cancel?.unlisten(this.#onCancel);
    this.#unlistenSignal?.();
    const { logEntry, log } = this.#options;
    if (logEntry) logEntry(this.#entry(error));
    else if (log) log(backendLogRecord(this.#entry(error)));
  }

  #entry(error: Error | null): BackendLogInput {
    const timings: BackendTimings = {
      dns: this.#connect?.dns ?? null,
      tcp: this.#connect?.tcp ?? null,
      tls: this.#connect?.tls ?? null,
      ttfb: this.#ttfb,
      total: round(performance.now() - this.#start),
    };
    let custom: Readonly<Record<string, unknown>> | null = null;
    let customError: string | undefined;
    try {
      custom = this.#request.customLogFields?.(this.#status === null ? null : { status: this.#status, headers: this.#responseHeaders ?? {} }) ?? null;
    } catch (failure) {
      customError = failure instanceof Error ? failure.message : String(failure);
    }
    return {
      startedAt: this.#startedAt,
      requestId: this.#request.requestId,
      backend: this.#options.backend,
      handler: this.#request.handler,
      method: this.#request.method,
      url: this.#request.url,
      requestHeaders: this.#headers,
      requestBytes: this.#requestBytes,
      status: this.#status,
      responseHeaders: this.#responseHeaders,
      responseBytes: this.#responseBytes,
      protocol: this.#protocol,
      timings,
      error,
      custom,
      ...(customError === undefined ? {} : { customError }),
    };
  }
}

/** A response whose body was read whole: `body` streams it only if someone reads it as a stream. */
class WholeResponse implements BackendResponse {
  #stream: Readable | null = null;

  constructor(
    readonly status: number,
    readonly headers: OutgoingHeaders,
    readonly buffered: Buffer,
  ) {}

  get body(): Readable {
    if (!this.#stream) {
      this.#stream = new Readable({ read() {} });
      if (this.buffered.length > 0) this.#stream.push(this.buffered);
      this.#stream.push(null);
    }
    return this.#stream;
  }
}

/** The response body as it arrives: each `read()` resumes undici, a full buffer pauses it. */
class ResponseBody extends Readable {
  readonly #exchange: BackendExchange;

  constructor(exchange: BackendExchange) {
    super();
    this.#exchange = exchange;
  }

  override _read(): void {
    this.#exchange.resumeBody();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.readableEnded) this.#exchange.bodyClosed(error);
    callback(error);
  }
}

function canceled(reason: unknown, backend: string): Error {
  if (reason instanceof GatewayError) return reason;
  const why = reason instanceof Error ? reason.message : reason === undefined ? 'aborted' : String(reason);
  return new GatewayError('backend', `request canceled: ${why}`, { cause: reason, source: backend });
}
