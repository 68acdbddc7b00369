/**
 * The compiled handler of a plain proxy route: an endpoint whose only block is a `default`
 * proxy to a backend with an origin, with no permission, modifier, custom log field, error
 * handler, expected status, websockets, oauth2 or openapi anywhere on its way, and no
 * expression at all (static `path`, `path_prefix`, `hostname`, `basic_auth` are fine). Access
 * controls may guard it when each is a `jwt` or `basic_auth` without error handlers: they read
 * only the request's headers, and a refusal is answered as the general path answers it (the
 * control's challenge, no error handler to run). Such a request needs no body buffering and no
 * response contexts: it is checked, forwarded and its answer given back, with the same
 * headers, URL, log fields and errors as the general path.
 */
import { addPrivateCaching } from '../access/private-caching.js';
import type { AccessControlConfig, BackendConfig, Dyn, GatewayConfig, Modifiers } from '../config/model.js';
import { noteRefusal } from './access-refusal.js';
import { routeScope } from './route-scope.js';
import type { EndpointContext, EndpointRoute, GatewayResponse } from '../contracts.js';
import { asGatewayError, GatewayError } from '../errors/error-types.js';
import type { EvalScope } from '../eval/request-scope.js';
import type { HeaderRecord } from '../modifiers/header-modifiers.js';
import { backendRequest } from './backend-request.js';
import { hasClientBody } from './client-body.js';
import { endToEndHeaders } from './hop-headers.js';
import { PROXY_DROPPED_HEADERS, setBodyHeaders } from './upstream.js';
import { upstreamUrl } from './upstream-url.js';

/** What a plain proxy request needs, resolved at load. */
interface PlainProxy {
  readonly backend: BackendConfig;
  readonly block: string;
  /** A static `hostname` for the Host header, or null. */
  readonly host: string | null;
  /** The Authorization header of a static `basic_auth`, or null. */
  readonly authorization: string | null;
  /** `request_id_backend_header` in lower case, or "" for none. */
  readonly idHeader: string;
  /** The access controls to pass first (jwt and basic_auth only), in order. */
  readonly labels: readonly string[];
}

/** Access controls a plain route runs itself: they read headers only and answer a refusal with their own challenge. */
const PLAIN_GUARDS: ReadonlySet<AccessControlConfig['kind']> = new Set(['jwt', 'basic_auth']);

function plainGuards(config: GatewayConfig, labels: readonly string[]): boolean {
  return labels.every((label) => {
    const control = config.accessControls[label];
    return control !== undefined && PLAIN_GUARDS.has(control.kind) && control.errorHandlers.length === 0;
  });
}

/** The plain proxy handler of `route`, or null when the route uses anything the general path must run. */
export function compilePlainProxy(route: EndpointRoute): ((ctx: EndpointContext) => Promise<GatewayResponse>) | null {
  const plain = plainProxyOf(route);
  return plain === null ? null : plainProxyHandler(plain);
}

function plainProxyOf({ config, server, api, endpoint }: EndpointRoute): PlainProxy | null {
  const proxy = endpoint.proxies[0];
  if (endpoint.proxies.length !== 1 || proxy === undefined || proxy.name !== 'default') return null;
  if (endpoint.requests.length > 0 || endpoint.response !== null || endpoint.errorHandlers.length > 0 || endpoint.requiredPermission !== null) return null;
  if (!plainGuards(config, endpoint.access.effective) || endpoint.customLogFields.length > 0 || server.customLogFields.length > 0) return null;
  if (api && (api.errorHandlers.length > 0 || api.requiredPermission !== null || api.customLogFields.length > 0 || !unmodified(api.modifiers))) return null;
  if (!unmodified(server.modifiers) || !unmodified(endpoint.modifiers) || !unmodified(proxy.modifiers)) return null;
  if (proxy.url !== null || proxy.expectedStatus !== null || proxy.websockets !== null || proxy.dependsOn.length > 0) return null;
  const backend = config.backends[proxy.backend];
  if (!backend || backend.origin === null || backend.oauth2 !== null || backend.openapi !== null || backend.customLogFields.length > 0 || !unmodified(backend.modifiers)) return null;
  if (![backend.path, backend.pathPrefix, backend.hostname, backend.basicAuth].every(isStatic)) return null;
  const idHeader = config.settings.requestIdBackendHeader.toLowerCase();
  const host = backend.hostname?.kind === 'static' && backend.hostname.value ? backend.hostname.value : null;
  const basic = backend.basicAuth?.kind === 'static' && backend.basicAuth.value ? backend.basicAuth.value : null;
  return { backend, block: `proxy "${proxy.name}"`, host, authorization: basic === null ? null : `Basic ${Buffer.from(basic).toString('base64')}`, idHeader, labels: endpoint.access.effective };
}

/** True when no modifier of the block is set. */
export function unmodified(modifiers: Modifiers): boolean {
  for (const key in modifiers) if (modifiers[key as keyof Modifiers] !== null) return false;
  return true;
}

function isStatic(dyn: Dyn<unknown> | null): boolean {
  return dyn === null || dyn.kind === 'static';
}

/** Static attributes never read a variable: a scope that has none. */
const NO_VARIABLES: EvalScope = {
  resolve: () => undefined,
  get functions(): never {
    throw new GatewayError('configuration', 'a plain proxy route evaluated an expression');
  },
};

function plainProxyHandler(plain: PlainProxy): (ctx: EndpointContext) => Promise<GatewayResponse> {
  const { backend, block, host, authorization, idHeader, labels } = plain;
  return async function plainProxyRequest(ctx: EndpointContext): Promise<GatewayResponse> {
    ctx.log.handler = 'endpoint';
    const request = ctx.request;
    if (labels.length > 0) {
      // Their token_value and claims expressions, and request.context for nothing else: the route has no expression.
      try {
        await ctx.access.enforce(labels, routeScope(ctx), ctx.log, ctx);
      } catch (thrown) {
        throw noteRefusal(thrown, ctx.log);
      }
    }
    try {
      // As the general path (upstream.ts proxyRequest and finishBackendRequest), in its order.
      const headers = endToEndHeaders(request.headers, PROXY_DROPPED_HEADERS);
      const prior = headers['x-forwarded-for'];
      headers['x-forwarded-for'] = prior === undefined ? request.clientIp : `${[prior].flat().join(', ')}, ${request.clientIp}`;
      const url = upstreamUrl({ backend, url: null, client: request.url, wildcard: request.wildcard, scope: NO_VARIABLES, block });
      const body = hasClientBody(request.headers) ? ctx.incoming : null;
      setBodyHeaders(headers, body);
      if (host !== null) headers['host'] = host;
      if (authorization !== null) headers['authorization'] = authorization;
      if (idHeader !== '') headers[idHeader] = request.id;
      const response = await ctx.backends.get(backend.name).send(backendRequest(ctx, { method: request.method, url, headers, body }, 'default'));
      // The backend's headers are this request's own copy (hop-by-hop headers already dropped).
      const answer = response.headers as HeaderRecord;
      if (labels.length > 0 && ctx.access.privateCaching(labels)) addPrivateCaching(answer);
      if (response.status === 204) {
        if (response.buffered === undefined) response.body.resume();
        delete answer['content-length'];
        return { status: 204, headers: answer, body: null };
      }
      return { status: response.status, headers: answer, body: response.buffered ?? response.body };
    } catch (thrown) {
      const error = asGatewayError(thrown, 'backend');
      ctx.log.errorType = error.kind;
      ctx.log.errorDetail = error.detail;
      throw error;
    }
  };
}
