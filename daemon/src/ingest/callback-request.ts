import type { Dispatcher } from 'undici';
import { PorticoError } from '../core/errors.js';

/** Bytes of a receiver's answer kept for the attempt log. */
export const RESPONSE_SNIPPET_BYTES = 2048;

export interface CallbackResponse {
  statusCode: number;
  /** The first RESPONSE_SNIPPET_BYTES of the body as UTF-8; null when it was empty. */
  snippet: string | null;
}

/** Where a callback goes: the URL's origin, and its path with the query. */
export interface CallbackTarget {
  origin: string;
  path: string;
}

/** A request cut short by its sender rather than by the network: its deadline, or a stopping worker. */
export class CallbackRequestAborted extends PorticoError {
  override name = 'CallbackRequestAborted';
  constructor(readonly reason: 'timeout' | 'stopped') {
    super(reason === 'timeout' ? 'ERR_CALLBACK_TIMEOUT' : 'ERR_CALLBACK_STOPPED', reason === 'timeout' ? 'the attempt ran out of time' : 'the worker is stopping', { category: 'unavailable' });
  }
}

/** A body past the snippet is not read: the request ends there (and its connection with it). */
class SnippetFull extends PorticoError {
  override name = 'SnippetFull';
  constructor() {
    super('ERR_CALLBACK_SNIPPET_FULL', `the answer is longer than the ${RESPONSE_SNIPPET_BYTES} bytes kept`);
  }
}

/**
 * One POST through undici's dispatcher API, answered with its status and the start of its body.
 * No response stream, no AbortController: the deadline and a stop cut the request through the
 * abort undici hands over at onConnect, which is the one cancellation path. The raw handler
 * interface (onConnect, onHeaders, onData...): the newer one would have undici parse the answer's
 * headers and trailers into objects nobody reads here.
 */
export class CallbackRequest implements Dispatcher.DispatchHandler {
  readonly done: Promise<CallbackResponse>;
  #resolve!: (response: CallbackResponse) => void;
  #reject!: (error: Error) => void;
  #abortRequest: ((reason: Error) => void) | null = null;
  #cut: CallbackRequestAborted | null = null;
  #settled = false;
  #statusCode = 0;
  #chunks: Buffer[] = [];
  #size = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(dispatcher: Dispatcher, target: CallbackTarget, headers: Record<string, string>, body: string, timeoutMs: number) {
    this.done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#timer = setTimeout(() => this.abort('timeout'), timeoutMs);
    try {
      dispatcher.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers, body }, this);
    } catch (error) {
      this.#fail(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Ends the request now. Before the answer's status `done` rejects with CallbackRequestAborted;
   * after it, the status decides and the snippet is what had arrived.
   */
  abort(reason: 'timeout' | 'stopped'): void {
    if (this.#settled) return;
    this.#cut = new CallbackRequestAborted(reason);
    // Not started yet (waiting for a connection): it is aborted as it starts.
    this.#abortRequest?.(this.#cut);
    if (this.#statusCode > 0) this.#succeed();
    else this.#fail(this.#cut);
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.#abortRequest = abort;
    if (this.#cut) abort(this.#cut);
  }

  onHeaders(statusCode: number): boolean {
    this.#statusCode = statusCode;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    if (this.#size >= RESPONSE_SNIPPET_BYTES) this.#abortRequest?.(new SnippetFull());
    return true;
  }

  onComplete(): void {
    this.#succeed();
  }

  onError(error: Error): void {
    // A body cut short only shortens the audit snippet: the status decides the attempt.
    if (this.#statusCode > 0 || error instanceof SnippetFull) this.#succeed();
    else this.#fail(this.#cut ?? error);
  }

  #succeed(): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    const snippet = this.#size === 0 ? null : Buffer.concat(this.#chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8');
    this.#resolve({ statusCode: this.#statusCode, snippet });
  }

  #fail(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#reject(error);
  }
}
