/**
 * How the HTTP front evaluates per-request attributes (files/spa/server response header
 * modifiers, custom_log_fields). The endpoint part brings the full request scope
 * (gateway/eval); until it is passed in, `basicRequestEvaluator` evaluates with the variables
 * the front itself knows: `request.{id,method,headers,cookies,query,path_params,url,origin,
 * protocol,host,port,path}`, `env` and `gateway.version`.
 */
import { evaluate } from '../../hcl/index.js';
import type { Dyn, GatewayConfig } from '../config/model.js';
import type { RequestInfo } from '../contracts.js';

export interface RequestEvaluator {
  /** The value of `dyn` for this request; throws when the expression fails. */
  evaluate<T>(dyn: Dyn<T>, config: GatewayConfig, request: RequestInfo): T;
}

export const basicRequestEvaluator: RequestEvaluator = {
  evaluate<T>(dyn: Dyn<T>, config: GatewayConfig, request: RequestInfo): T {
    if (dyn.kind === 'static') return dyn.value;
    return evaluate(dyn.expr, { request: requestVariables(request), env: config.env, gateway: { version: config.version } }) as T;
  },
};

function requestVariables(request: RequestInfo): Record<string, unknown> {
  const url = request.url;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : (value as string);
  }
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) (query[name] ??= []).push(value);
  const cookies: Record<string, string> = {};
  for (const pair of (headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0) cookies[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  const protocol = url.protocol.replace(/:$/, '');
  return {
    id: request.id,
    method: request.method,
    headers,
    cookies,
    query,
    path_params: request.pathParams,
    url: url.href,
    origin: url.origin,
    protocol,
    host: url.hostname,
    port: url.port === '' ? (protocol === 'https' ? 443 : 80) : Number(url.port),
    path: url.pathname,
  };
}
