import type { BackendRequest, EndpointContext, RequestCancel } from '../contracts.js';
import type { HeaderRecord } from '../modifiers/header-modifiers.js';

export interface OutgoingRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: HeaderRecord;
  readonly body: BackendRequest['body'];
}

/**
 * The backend request of a plain proxy route, which no wrapping client sees (no oauth2,
 * openapi or websockets): its AbortSignal, made only if read, is a getter of the class.
 */
export class PlainBackendRequest implements BackendRequest {
  constructor(
    readonly method: string,
    readonly url: URL,
    readonly headers: HeaderRecord,
    readonly body: BackendRequest['body'],
    readonly cancel: RequestCancel,
    readonly requestId: string,
    readonly handler: string,
  ) {}

  get signal(): AbortSignal {
    return this.cancel.signal;
  }
}

/**
 * A backend request for one of the client request's blocks. It follows the client request's
 * cancellation; its AbortSignal is made only if something reads it. A plain object (its
 * `signal` an own getter), as wrapping clients copy it with a spread.
 */
export function backendRequest(ctx: EndpointContext, outgoing: OutgoingRequest, handler: string, customLogFields?: BackendRequest['customLogFields']): BackendRequest {
  const { method, url, headers, body } = outgoing;
  const requestId = ctx.request.id;
  const logFields = customLogFields === undefined ? {} : { customLogFields };
  const cancel = ctx.cancel;
  if (!cancel) return { method, url, headers, body, signal: ctx.signal, requestId, handler, ...logFields };
  return {
    method,
    url,
    headers,
    body,
    cancel,
    get signal(): AbortSignal {
      return cancel.signal;
    },
    requestId,
    handler,
    ...logFields,
  };
}
