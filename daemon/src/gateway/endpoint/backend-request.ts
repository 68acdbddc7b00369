import type { BackendRequest, EndpointContext, RequestCancel } from '../contracts.js';
import type { HeaderRecord } from '../modifiers/header-modifiers.js';

export interface OutgoingRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: HeaderRecord;
  readonly body: BackendRequest['body'];
}

/**
 * The backend request of one of the client request's blocks: it follows the client request's
 * cancellation, and its AbortSignal, made only if something reads it, is a getter of the
 * class. Not an object literal with its own `get signal()`: V8 gives each such object a hidden
 * class of its own (the getter is a new closure each time), which the old generation's
 * transition tree pointed at, so every request's objects outlived young-generation collections
 * and were promoted (docs/gateway.md, "Performance"). A spread drops the getter: a wrapping
 * client that copies a request names `signal` itself.
 */
export class ClientBlockRequest implements BackendRequest {
  constructor(
    readonly method: string,
    readonly url: URL,
    readonly headers: HeaderRecord,
    readonly body: BackendRequest['body'],
    readonly cancel: RequestCancel,
    readonly requestId: string,
    readonly handler: string,
    readonly customLogFields?: BackendRequest['customLogFields'],
  ) {}

  get signal(): AbortSignal {
    return this.cancel.signal;
  }
}

/** A backend request for one of the client request's blocks (see ClientBlockRequest). */
export function backendRequest(ctx: EndpointContext, outgoing: OutgoingRequest, handler: string, customLogFields?: BackendRequest['customLogFields']): BackendRequest {
  const { method, url, headers, body } = outgoing;
  const requestId = ctx.request.id;
  const cancel = ctx.cancel;
  if (cancel) return new ClientBlockRequest(method, url, headers, body, cancel, requestId, handler, customLogFields);
  return { method, url, headers, body, signal: ctx.signal, requestId, handler, ...(customLogFields === undefined ? {} : { customLogFields }) };
}
