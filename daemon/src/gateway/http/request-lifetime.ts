/**
 * One client request's cancellation: the client going away (its connection closed before the
 * response finished), the body timeout, or the shutdown deadline. Listeners are plain
 * functions called once; an AbortController is made only when something asks for a signal
 * (access controls, body reads), so a plain proxied request pays for none.
 */
import type { RequestCancel } from '../contracts.js';

type Listener = (reason: Error) => void;

export class RequestLifetime implements RequestCancel {
  #reason: Error | null = null;
  /** Usually one listener (the backend exchange): kept apart from the rest to spare an array. */
  #first: Listener | null = null;
  #more: Listener[] | null = null;
  #controller: AbortController | null = null;

  get reason(): Error | null {
    return this.#reason;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  listen(listener: Listener): void {
    if (this.#reason) {
      listener(this.#reason);
      return;
    }
    if (this.#first === null) this.#first = listener;
    else (this.#more ??= []).push(listener);
  }

  unlisten(listener: Listener): void {
    if (this.#first === listener) this.#first = null;
    else if (this.#more) {
      const at = this.#more.indexOf(listener);
      if (at !== -1) this.#more.splice(at, 1);
    }
  }

  /** Cancels the request once; later calls are ignored. */
  cancel(reason: Error): void {
    if (this.#reason) return;
    this.#reason = reason;
    const first = this.#first;
    const more = this.#more;
    this.#first = null;
    this.#more = null;
    this.#controller?.abort(reason);
    first?.(reason);
    if (more) for (const listener of more) listener(reason);
  }
}
