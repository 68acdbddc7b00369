/**
 * The compiled handler of a plain proxy route: an endpoint whose only block is a `default`
 * proxy, with no form or status modifier, websockets, oauth2 or openapi anywhere on its way
 * (the proxy's `url` and the backend's `path`, `path_prefix`, `hostname` and `basic_auth` may be
 * constants or expressions under the modifiers' rules below). Access controls may guard it
 * when each is a `jwt` or `basic_auth`: they read only the request's headers. A
 * `beta_required_permission` (under the same rules) is checked once they passed, and a proxy's
 * `expected_status` once the backend answered. Error handlers (the access controls', the
 * endpoint's, the api's) may be there when none of them reads the proxy's exchange
 * (`backend_requests.default`, `backend_responses.default`), which this handler does not
 * record: a failure is answered by error-handling.ts as on the general path.
 * Header and query modifiers may be set, as constants or as expressions that read `request`
 * (not its body), `env`, `gateway` or `backends` and call none of the request's functions: the
 * response headers (`remove_/set_/add_response_headers`) of server, api, endpoint, proxy and
 * backend, and the request headers and query parameters (`remove_/set_/add_request_headers`,
 * `remove_/set_/add_query_params`) of endpoint, proxy and backend; they are applied as the
 * general path applies them, in its order. The `custom_log_fields` of server, api and
 * endpoint, under the same rules, are evaluated once the route answered or failed, as on the
 * general path. Such a request needs no body buffering and no response contexts: it is
 * checked, forwarded and its answer given back, with the same headers, URL, log fields and
 * errors as the general path.
 */
import { addPrivateCaching } from '../access/private-caching.js';
import type { AccessControlConfig, BackendConfig, CustomLogFields, Dyn, ErrorHandlerConfig, GatewayConfig, Modifiers } from '../config/model.js';
import { expressionRefs } from '../config/expr-refs.js';
import { callsRequestFunctions, evalDyn, evalOptional } from '../eval/eval-dyn.js';
import { applyRequestHeaderModifiers, applyResponseHeaderModifiers } from '../modifiers/header-modifiers.js';
import { applyQueryModifiers } from '../modifiers/params-modifiers.js';
import { backendDyns, bodyDyns, bodyPlanFor, type BodyPlan } from './body-plan.js';
import { noteRefusal } from './access-refusal.js';
import { routeScope, withBlockLogFields } from './route-scope.js';
import type { BackendResponse, EndpointContext, EndpointRoute, GatewayResponse } from '../contracts.js';
import { asGatewayError, GatewayError } from '../errors/error-types.js';
import { stepName } from '../eval/lenient-traversals.js';
import { answerError, answerRefusal, finishOutcome, type ServeLogger } from './error-handling.js';
import { EndpointBodyEnv } from './run-body.js';
import type { EvalScope, RequestScope } from '../eval/request-scope.js';
import type { HeaderRecord } from '../modifiers/header-modifiers.js';
import { backendRequest } from './backend-request.js';
import { hasClientBody } from './client-body.js';
import { copyHeaders, endToEndHeaders } from './hop-headers.js';
import { discardBody, drainBody } from './read-all.js';
import { PROXY_DROPPED_HEADERS, setBodyHeaders, unexpectedStatus } from './upstream.js';
import { checkPermission } from './permission.js';
import { upstreamUrl } from './upstream-url.js';

/** What a plain proxy request needs, resolved at load. */
interface PlainProxy {
  readonly backend: BackendConfig;
  readonly block: string;
  /** The proxy's `url`, or null. */
  readonly url: Dyn<string> | null;
  /** The url or the backend's path, path_prefix, hostname or basic_auth is an expression: they read the request's variables. */
  readonly addressed: boolean;
  /** The backend's `hostname` and `basic_auth` when they are expressions (evaluated per request), else null. */
  readonly hostExpr: Dyn<string> | null;
  readonly basicAuthExpr: Dyn<string> | null;
  /** The proxy's `expected_status`, or null. */
  readonly expected: readonly number[] | null;
  /** A static `hostname` for the Host header, or null. */
  readonly host: string | null;
  /** The Authorization header of a static `basic_auth`, or null. */
  readonly authorization: string | null;
  /** `request_id_backend_header` in lower case, or "" for none. */
  readonly idHeader: string;
  /** The access controls to pass first (jwt and basic_auth only), in order. */
  readonly labels: readonly string[];
  /** `beta_required_permission` is set: checked once the access controls passed. */
  readonly permission: boolean;
  /** The blocks with request header or query modifiers (endpoint, proxy), in the order they apply. */
  readonly requestModifiers: readonly RequestModifiers[];
  /** The backend's request header or query modifiers (they apply after the body's headers), if it has some. */
  readonly backendModifiers: readonly RequestModifiers[];
  /** The blocks with response header modifiers (server, api, endpoint, proxy, backend), in the order they apply. */
  readonly responseModifiers: readonly Modifiers[];
  /** `custom_log_fields` of server, api and endpoint (the endpoint's list holds them all). */
  readonly logFields: CustomLogFields;
  /** How a failure is answered when an error handler may answer it, else null (it is thrown). */
  readonly failures: Failures | null;
}

/** What the error handlers of a plain route need. */
interface Failures {
  readonly plan: BodyPlan;
  /** Server's and api's modifiers that change something: a handler's answer passes them first. */
  readonly outer: readonly Modifiers[];
  /** An access control on the way has error handlers: a refusal goes to them. */
  readonly refusals: boolean;
  /** The endpoint's error handlers, then the api's: any other failure goes to them. */
  readonly own: readonly ErrorHandlerConfig[];
  readonly api: readonly ErrorHandlerConfig[];
  readonly logger: ServeLogger | undefined;
}

/** A block's request-side modifiers; `query` when it has query modifiers (the URL's parameters are made only then). */
interface RequestModifiers {
  readonly modifiers: Modifiers;
  readonly query: boolean;
}

/** Access controls a plain route runs itself: they read headers only and answer a refusal with their own challenge. */
const PLAIN_GUARDS: ReadonlySet<AccessControlConfig['kind']> = new Set(['jwt', 'basic_auth']);

function plainGuards(config: GatewayConfig, labels: readonly string[]): boolean {
  return labels.every((label) => {
    const control = config.accessControls[label];
    return control !== undefined && PLAIN_GUARDS.has(control.kind) && plainHandlers(config, control.errorHandlers);
  });
}

/** The variables of backend exchanges: a plain route records none for its proxy. */
const EXCHANGE_ROOTS: ReadonlySet<string> = new Set(['backend_requests', 'backend_responses']);

/**
 * True when no expression of these error handlers (their blocks, their backends, their nested
 * handlers) reads the plain proxy's exchange: `backend_requests.default`, `backend_responses.default`,
 * or either as a whole. Their own requests' exchanges are theirs to read.
 */
function plainHandlers(config: GatewayConfig, handlers: readonly ErrorHandlerConfig[]): boolean {
  return handlers.every((handler) => {
    const backends = [...handler.proxies, ...handler.requests].map((block) => config.backends[block.backend]);
    const dyns = [...bodyDyns(handler), ...backends.flatMap((backend) => (backend ? backendDyns(backend) : []))];
    return dyns.every(readsNoProxyExchange) && plainHandlers(config, handler.errorHandlers);
  });
}

function readsNoProxyExchange(dyn: Dyn<unknown> | null): boolean {
  if (dyn === null || dyn.kind !== 'expr') return true;
  return expressionRefs(dyn.expr).variables.every((v) => {
    if (!EXCHANGE_ROOTS.has(v.root)) return true;
    const label = stepName(v.steps[0]);
    return label !== undefined && label !== 'default';
  });
}

/** The plain proxy handler of `route`, or null when the route uses anything the general path must run. */
export function compilePlainProxy(route: EndpointRoute, logger?: ServeLogger): ((ctx: EndpointContext) => Promise<GatewayResponse>) | null {
  const plain = plainProxyOf(route, logger);
  return plain === null ? null : plainProxyHandler(plain);
}

function plainProxyOf({ config, server, api, endpoint }: EndpointRoute, logger: ServeLogger | undefined): PlainProxy | null {
  const proxy = endpoint.proxies[0];
  if (endpoint.proxies.length !== 1 || proxy === undefined || proxy.name !== 'default') return null;
  if (endpoint.requests.length > 0 || endpoint.response !== null) return null;
  if (!plainGuards(config, endpoint.access.effective) || !endpoint.customLogFields.every(plainDyn)) return null;
  // The endpoint's permission, else its api's (the configuration folds them into the endpoint's).
  if (endpoint.requiredPermission !== null && !plainDyn(endpoint.requiredPermission)) return null;
  const apiHandlers = api?.errorHandlers ?? [];
  if (!plainHandlers(config, endpoint.errorHandlers) || !plainHandlers(config, apiHandlers)) return null;
  // Server and api have response header modifiers only (the schema's); endpoint and proxy may change the request too.
  const contexts = [server.modifiers, ...(api ? [api.modifiers] : []), endpoint.modifiers, proxy.modifiers];
  if (!contexts.every(onlyPlainHeadersAndQuery)) return null;
  // What the modifiers' expressions read: the client body (or all of `request`), or a login's URL, are the general path's.
  const plan = bodyPlanFor(config, server, api, endpoint);
  if (plan.clientBody || plan.formModifiers || plan.loginLabels.size > 0) return null;
  if (proxy.websockets !== null || proxy.dependsOn.length > 0) return null;
  const backend = config.backends[proxy.backend];
  if (!backend || backend.oauth2 !== null || backend.openapi !== null || backend.customLogFields.length > 0 || !onlyPlainHeadersAndQuery(backend.modifiers)) return null;
  // The URL's parts and the backend's Host and credentials: constants, or expressions under the modifiers' rules.
  const addressing = [proxy.url, backend.path, backend.pathPrefix, backend.hostname, backend.basicAuth];
  if (!addressing.every((dyn) => dyn === null || plainDyn(dyn))) return null;
  const idHeader = config.settings.requestIdBackendHeader.toLowerCase();
  const host = backend.hostname?.kind === 'static' && backend.hostname.value ? backend.hostname.value : null;
  const basic = backend.basicAuth?.kind === 'static' && backend.basicAuth.value ? backend.basicAuth.value : null;
  const requestModifiers = requestSide([endpoint.modifiers, proxy.modifiers]);
  const backendModifiers = requestSide([backend.modifiers]);
  const responseModifiers = [...contexts, backend.modifiers].filter((m) => sets(m, RESPONSE_HEADER_MODIFIERS));
  const authorization = basic === null ? null : `Basic ${Buffer.from(basic).toString('base64')}`;
  const labels = endpoint.access.effective;
  const refusals = labels.some((label) => (config.accessControls[label]?.errorHandlers.length ?? 0) > 0);
  const handled = refusals || endpoint.errorHandlers.length > 0 || apiHandlers.length > 0;
  const outer = [server.modifiers, ...(api ? [api.modifiers] : [])].filter((m) => !unmodified(m));
  const failures: Failures | null = handled ? { plan, outer, refusals, own: endpoint.errorHandlers, api: apiHandlers, logger } : null;
  const permission = endpoint.requiredPermission !== null;
  const addressed = addressing.some((dyn) => dyn?.kind === 'expr');
  const dynamic = (dyn: Dyn<string> | null) => (dyn?.kind === 'expr' ? dyn : null);
  return { backend, block: `proxy "${proxy.name}"`, url: proxy.url, addressed, hostExpr: dynamic(backend.hostname), basicAuthExpr: dynamic(backend.basicAuth), expected: proxy.expectedStatus, host, authorization, idHeader, labels, permission, requestModifiers, backendModifiers, responseModifiers, logFields: endpoint.customLogFields, failures };
}

/** The blocks that set request headers or query parameters, in order. */
function requestSide(blocks: readonly Modifiers[]): RequestModifiers[] {
  return blocks.filter((m) => sets(m, REQUEST_HEADER_MODIFIERS) || sets(m, QUERY_MODIFIERS)).map((modifiers) => ({ modifiers, query: sets(modifiers, QUERY_MODIFIERS) }));
}

const RESPONSE_HEADER_MODIFIERS: ReadonlySet<string> = new Set<keyof Modifiers>(['removeResponseHeaders', 'setResponseHeaders', 'addResponseHeaders']);
const REQUEST_HEADER_MODIFIERS: ReadonlySet<string> = new Set<keyof Modifiers>(['removeRequestHeaders', 'setRequestHeaders', 'addRequestHeaders']);
const QUERY_MODIFIERS: ReadonlySet<string> = new Set<keyof Modifiers>(['removeQueryParams', 'setQueryParams', 'addQueryParams']);
/** The variables a plain route has for its modifiers and log fields: the backend's request and response are not recorded there. */
const PLAIN_ROOTS: ReadonlySet<string> = new Set(['request', 'env', 'gateway', 'backends']);

/** True when the block sets no modifier but headers and query parameters, each a constant or an expression a plain route can evaluate. */
function onlyPlainHeadersAndQuery(modifiers: Modifiers): boolean {
  for (const key in modifiers) {
    const dyn = modifiers[key as keyof Modifiers];
    if (dyn === null) continue;
    if (!RESPONSE_HEADER_MODIFIERS.has(key) && !REQUEST_HEADER_MODIFIERS.has(key) && !QUERY_MODIFIERS.has(key)) return false;
    if (!plainDyn(dyn)) return false;
  }
  return true;
}

/** A constant, or an expression reading only the plain roots and calling none of the request's functions. */
function plainDyn(dyn: Dyn<unknown>): boolean {
  return dyn.kind !== 'expr' || (expressionRefs(dyn.expr).variables.every((v) => PLAIN_ROOTS.has(v.root)) && !callsRequestFunctions(dyn.expr));
}

/** True when the block sets one of these modifiers. */
function sets(modifiers: Modifiers, keys: ReadonlySet<string>): boolean {
  for (const key of keys) if (modifiers[key as keyof Modifiers] !== null) return true;
  return false;
}

/** True when no modifier of the block is set. */
export function unmodified(modifiers: Modifiers): boolean {
  for (const key in modifiers) if (modifiers[key as keyof Modifiers] !== null) return false;
  return true;
}

/** Static attributes never read a variable: a scope that has none. */
const NO_VARIABLES: EvalScope = {
  resolve: () => undefined,
  get functions(): never {
    throw new GatewayError('configuration', 'a plain proxy route evaluated an expression');
  },
};

function plainProxyHandler(plain: PlainProxy): (ctx: EndpointContext) => Promise<GatewayResponse> {
  const { backend, block, url: urlDyn, addressed, hostExpr, basicAuthExpr, expected, host, authorization, idHeader, labels, permission, requestModifiers, backendModifiers, responseModifiers, logFields, failures } = plain;
  // The access controls' token_value and claims expressions, the permission, the addressing and the modifiers read the request (request.context included).
  const scoped = labels.length > 0 || permission || addressed || requestModifiers.length > 0 || backendModifiers.length > 0 || responseModifiers.length > 0;
  const serve = async function plainProxyServe(ctx: EndpointContext, scope: RequestScope | null): Promise<GatewayResponse> {
    ctx.log.handler = 'endpoint';
    const request = ctx.request;
    if (labels.length > 0) {
      try {
        await ctx.access.enforce(labels, scope!, ctx.log, ctx);
      } catch (thrown) {
        if (failures === null || !failures.refusals) throw noteRefusal(thrown, ctx.log);
        // As the general path: the refusing control's handler answers, without private caching.
        const outcome = await answerRefusal(thrown, new EndpointBodyEnv(ctx, scope!, failures.plan), failures.logger);
        return finishOutcome(outcome, failures.outer, scope!, ctx, failures.logger, false);
      }
      // As the general path (checkMethods): the methods once the controls passed, past the error handlers.
      ctx.methodCheck?.();
    }
    let response: BackendResponse;
    try {
      // As the general path: the permission once the controls passed, its error the handlers' to answer.
      if (permission) checkPermission(ctx, scope!);
      // As the general path (upstream.ts proxyRequest and finishBackendRequest), in its order.
      const headers = endToEndHeaders(request.headers, PROXY_DROPPED_HEADERS);
      const prior = headers['x-forwarded-for'];
      headers['x-forwarded-for'] = prior === undefined ? request.clientIp : `${[prior].flat().join(', ')}, ${request.clientIp}`;
      const variables = scope ?? NO_VARIABLES;
      const url = upstreamUrl({ backend, url: evalOptional(urlDyn, variables, { name: 'url', type: 'string' }), client: request.url, wildcard: request.wildcard, scope: variables, block });
      // As the general path (proxyRequest): endpoint, then proxy; headers, then query.
      applyRequestModifiers(requestModifiers, headers, url, scope!);
      const body = hasClientBody(request.headers) ? ctx.incoming : null;
      setBodyHeaders(headers, body);
      // The backend's, after the body's headers (finishBackendRequest); its expressions read no backend_request.
      applyRequestModifiers(backendModifiers, headers, url, scope!);
      // As finishBackendRequest: Host, then the credentials (an expression here reads no backend_request).
      const hostname = hostExpr === null ? host : evalDyn(hostExpr, variables, { name: 'hostname', type: 'string' });
      if (hostname) headers['host'] = hostname;
      const basicAuth = basicAuthExpr === null ? null : evalDyn(basicAuthExpr, variables, { name: 'basic_auth', type: 'string' });
      if (basicAuth) headers['authorization'] = `Basic ${Buffer.from(basicAuth).toString('base64')}`;
      else if (authorization !== null) headers['authorization'] = authorization;
      if (idHeader !== '') headers[idHeader] = request.id;
      response = await ctx.backends.get(backend.name).send(backendRequest(ctx, { method: request.method, url, headers, body }, 'default'));
      if (expected !== null && !expected.includes(response.status)) {
        // No expression of this route reads the answer (`backend_responses.default`): let go.
        if (response.buffered === undefined) discardBody(response.body);
        throw unexpectedStatus(block, backend.name, response.status, expected);
      }
    } catch (thrown) {
      const error = asGatewayError(thrown, 'backend');
      ctx.log.errorType = error.kind;
      ctx.log.errorDetail = error.detail;
      if (failures === null || (failures.own.length === 0 && failures.api.length === 0)) throw error;
      // Without modifiers or access controls the scope was not needed so far: a new one holds what this one would.
      const handlerScope = scope ?? routeScope(ctx);
      const outcome = await answerError(error, failures.own, failures.api, new EndpointBodyEnv(ctx, handlerScope, failures.plan), failures.logger);
      return finishOutcome(outcome, failures.outer, handlerScope, ctx, failures.logger, labels.length > 0 && ctx.access.privateCaching(labels));
    }
    // The backend's headers are this request's own (hop-by-hop headers already dropped), and its
    // backend line reads them when the body ends: what the gateway changes goes into a copy, as on
    // the general path, so a streamed answer's line shows what the backend sent.
    const privateCaching = labels.length > 0 && ctx.access.privateCaching(labels);
    const changes = responseModifiers.length > 0 || privateCaching || response.status === 204;
    const answer = changes ? copyHeaders(response.headers as HeaderRecord) : (response.headers as HeaderRecord);
    // As the general path: server, api, endpoint, proxy, backend (an evaluation error is not the backend's).
    try {
      for (const modifiers of responseModifiers) applyResponseHeaderModifiers(answer, modifiers, scope!);
    } catch (thrown) {
      // The error is answered instead: a streamed body nobody will read is let go (its connection with it).
      if (response.buffered === undefined) discardBody(response.body);
      throw thrown;
    }
    if (privateCaching) addPrivateCaching(answer);
    if (response.status === 204) {
      if (response.buffered === undefined) drainBody(response.body);
      delete answer['content-length'];
      return { status: 204, headers: answer, body: null };
    }
    return { status: response.status, headers: answer, body: response.buffered ?? response.body };
  };
  if (logFields.length === 0) {
    return function plainProxyRequest(ctx: EndpointContext): Promise<GatewayResponse> {
      return serve(ctx, scoped ? routeScope(ctx) : null);
    };
  }
  // As the general path.
  return withBlockLogFields(logFields, serve);
}

function applyRequestModifiers(blocks: readonly RequestModifiers[], headers: HeaderRecord, url: URL, scope: EvalScope): void {
  for (const { modifiers, query } of blocks) {
    applyRequestHeaderModifiers(headers, modifiers, scope);
    if (query) applyQueryModifiers(url.searchParams, modifiers, scope);
  }
}
