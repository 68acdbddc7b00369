import { formatRange } from '../../hcl/index.js';
import type { ModifierMap, ResponseConfig } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import { evalDyn, evalOptional } from '../eval/eval-dyn.js';
import type { EvalScope } from '../eval/request-scope.js';
import { setHeaders } from '../modifiers/header-modifiers.js';
import type { ModifiedResponse } from './response-contexts.js';

/** The client response a `response` block describes: status (200), body (text/plain) or json_body (application/json), headers. */
export function responseFromBlock(block: ResponseConfig, scope: EvalScope): ModifiedResponse {
  const status = evalDyn(block.status, scope, { name: 'status', type: 'status' }) ?? 200;
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new GatewayError('evaluation', `${formatRange(block.range)}: response status ${status} is not an HTTP status (100-599)`);
  }
  const headers: Record<string, string | string[]> = {};
  let body: Buffer | null = null;
  const text = evalOptional(block.body, scope, { name: 'body', type: 'string' });
  if (text !== null) {
    body = Buffer.from(text);
    headers['content-type'] = 'text/plain';
  } else if (block.jsonBody !== null) {
    body = Buffer.from(JSON.stringify(evalDyn(block.jsonBody, scope)));
    headers['content-type'] = 'application/json';
  }
  const own = evalOptional(block.headers, scope, { name: 'headers', type: 'modifierMap' }) as ModifierMap | null;
  if (own) setHeaders(headers, own);
  headers['content-length'] = String(body?.length ?? 0);
  return { status, headers, body };
}
