/**
 * One request to a backend over undici's dispatch API: streams the request body out and
 * the response body back (with backpressure, never buffered), enforces the total deadline
 * (`timeout`, which also cuts a hanging body), follows the caller's abort signal, and writes
 * the backend log record once the exchange ended or failed.
 */
import { performance } from 'node:perf_hooks';
import { Readable, Transform, pipeline } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { BackendRequest, BackendResponse, BackendTimings, GatewayLogRecord } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { backendError, formatMs, type ErrorContext } from './backend-errors.js';
import { backendLogRecord } from './backend-log.js';
import { awaitSocketTimings, round, type ConnectTimings } from './connection-timings.js';
import { responseHeaders, withoutHopByHop, type OutgoingHeaders } from './headers.js';

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
}

/** The reader closed the response body before its end: logged, but not a backend failure. */
class BodyClosedByReader extends Error {
  constructor(cause: Error | null) {
    super(`canceled: the response body was closed before its end${cause ? ` (${cause.message})` : ''}`, cause ? { cause } : undefined);
  }
}

type Controller = Dispatcher.DispatchController;

export class BackendExchange implements Dispatcher.DispatchHandler {
  readonly #options: ExchangeOptions;
  readonly #request: BackendRequest;
  readonly #headers: OutgoingHeaders;
  readonly #startedAt = new Date();
  readonly #start = performance.now();
  #controller: Controller | null = null;
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
  #timer: NodeJS.Timeout | null = null;
  #finished = false;
  #resolve!: (response: BackendResponse) => void;
  #reject!: (error: Error) => void;
  #unlistenSignal: () => void = () => {};

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
    const { signal } = this.#request;
    if (signal.aborted) {
      this.#fail(canceled(signal.reason, this.#options.backend));
      return promise;
    }
    const onAbort = () => this.#fail(canceled(signal.reason, this.#options.backend));
    signal.addEventListener('abort', onAbort, { once: true });
    this.#unlistenSignal = () => signal.removeEventListener('abort', onAbort);
    if (this.#options.timeout > 0) {
      this.#timer = setTimeout(() => {
        const { origin } = this.#options.errors;
        this.#fail(new GatewayError('backend_timeout', `${origin}: timeout after ${formatMs(this.#options.timeout)}`, { source: this.#options.backend }));
      }, this.#options.timeout);
      this.#timer.unref();
    }
    const { url, method } = this.#request;
    const options = {
      origin: url.origin,
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
      this.onResponseError(null, error as Error);
    }
    return promise;
  }

  onRequestStart(controller: Controller): void {
    this.#controller = controller;
    if (this.#abortReason) {
      controller.abort(this.#abortReason);
      return;
    }
    this.#sentAt = performance.now();
    awaitSocketTimings((timings, protocol) => {
      this.#connect = timings;
      this.#protocol = protocol;
    });
  }

  onResponseStart(controller: Controller, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // 1xx informational answers (103 Early Hints) precede the real one.
    if (statusCode < 200 || this.#finished) return;
    this.#controller = controller;
    this.#ttfb = this.#sentAt === null ? null : round(performance.now() - this.#sentAt);
    this.#status = statusCode;
    this.#responseHeaders = responseHeaders(headers);
    this.#body = new ResponseBody(this);
    this.#resolve({ status: statusCode, headers: this.#responseHeaders, body: this.#body });
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    this.#responseBytes += chunk.length;
    if (this.#body && !this.#body.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.#body?.push(null);
    this.#finish(null);
  }

  onResponseError(_controller: Controller | null, error: Error): void {
    if (this.#finished) return;
    const failure = error instanceof BodyClosedByReader ? error : backendError(error, this.#options.errors);
    this.#finish(failure);
    if (!this.#body) this.#reject(failure);
    else if (!this.#body.destroyed) this.#body.destroy(failure);
  }

  /** The reader wants more of the body. */
  resumeBody(): void {
    this.#controller?.resume();
  }

  /** The reader destroyed the body (with an error or before its end). */
  bodyClosed(error: Error | null): void {
    if (this.#finished) return;
    const reason = error instanceof GatewayError ? error : new BodyClosedByReader(error);
    this.#finish(reason);
    this.#controller?.abort(reason);
  }

  /** A deadline or the caller's signal ends the exchange, wherever it is. */
  #fail(reason: Error): void {
    if (this.#finished) return;
    this.#abortReason = reason;
    // Before undici started the request (it may wait for a free connection), nothing to abort yet:
    // answer now, and onRequestStart aborts it when its turn comes.
    if (this.#controller) this.#controller.abort(reason);
    if (!this.#finished) this.onResponseError(null, reason);
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
    this.#unlistenSignal();
    this.#options.log?.(this.#record(error));
  }

  #record(error: Error | null): GatewayLogRecord {
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
    return backendLogRecord({
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
    });
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
