import type { Modifiers } from '../config/model.js';
import type { GatewayResponse } from '../contracts.js';
import { evalOptional, type AttrCheck } from '../eval/eval-dyn.js';
import type { EvalScope } from '../eval/request-scope.js';
import { applyResponseHeaderModifiers } from '../modifiers/header-modifiers.js';
import { drainBody } from './read-all.js';

const SET_RESPONSE_STATUS: AttrCheck = { name: 'set_response_status', type: 'status' };

/** One context's response modifiers and the scope its expressions see. */
export interface ResponseContext {
  readonly modifiers: Modifiers;
  readonly scope: EvalScope;
  /** Whether `set_response_status` applies here (endpoint, backend, error_handler). */
  readonly status: boolean;
}

export interface ModifiedResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: GatewayResponse['body'];
  /** Set when `set_response_status = 204` dropped a body. */
  warning?: string;
}

/**
 * Applies the contexts in the spec's order (server, api, endpoint, proxy, backend,
 * error_handler): each removes, sets, adds response headers, then may set the status. A
 * 204 drops the body and Content-Length, with a warning for the log.
 */
export function applyResponseContexts(response: ModifiedResponse, contexts: readonly ResponseContext[]): ModifiedResponse {
  let setTo204 = false;
  for (const c of contexts) {
    applyResponseHeaderModifiers(response.headers, c.modifiers, c.scope);
    if (!c.status) continue;
    const status = evalOptional(c.modifiers.setResponseStatus, c.scope, SET_RESPONSE_STATUS);
    if (status !== null) {
      response.status = status;
      setTo204 = status === 204;
    }
  }
  if (response.status === 204) {
    if (response.body !== null && !Buffer.isBuffer(response.body)) drainBody(response.body);
    response.body = null;
    delete response.headers['content-length'];
    if (setTo204) response.warning = 'set_response_status = 204: the response body and Content-Length were removed';
  }
  return response;
}
