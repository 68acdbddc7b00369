import type { AccessControl, EndpointConfig, Modifiers } from '../config/model.js';
import type { EndpointContext, EndpointHandler, EndpointRoute, GatewayResponse, GuardContext } from '../contracts.js';
import { evalCustomLogFields } from '../eval/eval-dyn.js';
import { isFormPost } from '../eval/http-variables.js';
import { checkOverridesAllowed, formMethodOverrides, refusedAsOverride, type MethodOverride } from '../http/method-override.js';
import { isMultipartPost, multipartMethodOverrides, MultipartOverrideGuard } from '../http/multipart-method-override.js';
import { GatewayError } from '../errors/error-types.js';
import type { RequestScope } from '../eval/request-scope.js';
import { logCustomFieldsError } from '../logs/log-sink.js';
import { bodyPlanFor, type BodyPlan } from './body-plan.js';
import { hasClientBody, readClientBody } from './client-body.js';
import { finishOutcome, passAccessControls, runWithHandlers, type ServeLogger } from './error-handling.js';
import { checkPermission } from './permission.js';
import { routeScope, withBlockLogFields } from './route-scope.js';
import { compilePlainProxy, unmodified } from './plain-proxy.js';
import { applyResponseContexts } from './response-contexts.js';
import { EndpointBodyEnv, type BodyEnv, type BodyOutcome } from './run-body.js';
import { NO_MODIFIERS } from '../config/build-common.js';

/**
 * Serves routed endpoint requests: buffers the client body only when the endpoint's
 * expressions read it, runs the endpoint's blocks, catches errors with the most specific
 * error_handler (the endpoint's before the api's), and applies the response modifiers of
 * server, api, endpoint, proxy, backend and error_handler in that order. Each route is
 * compiled once into the steps it uses (each wraps the next, as hono's middleware); a plain
 * proxy route into plain-proxy.ts alone.
 */
export interface EndpointHandlerOptions {
  /** Receives configuration warnings met while serving (e.g. `set_response_status = 204` dropping a body). */
  readonly logger?: ServeLogger;
}

type RouteHandler = (ctx: EndpointContext) => Promise<GatewayResponse>;

export function createEndpointHandler({ logger }: EndpointHandlerOptions = {}): EndpointHandler {
  // Routes that were not compiled when applied (direct callers, tests) are compiled on first use.
  const compiled = new WeakMap<EndpointConfig, RouteHandler>();
  const compile = function compileRoute(route: EndpointRoute): RouteHandler {
    const plain = compilePlainProxy(route, logger);
    if (plain === null) return compileEndpoint(route, logger);
    if (!bodyPlanFor(route.config, route.server, route.api, route.endpoint).formMethodOverride) return plain;
    // The plain handler streams the body unread: a form POST, whose `_method` fields must be read, takes the general path.
    const general = compileEndpoint(route, logger);
    return function plainOrFormPost(ctx: EndpointContext): Promise<GatewayResponse> {
      const type = ctx.request.headers['content-type'];
      return isFormPost(ctx.request.method, type) || isMultipartPost(ctx.request.method, type) ? general(ctx) : plain(ctx);
    };
  };
  return {
    compile,

    handle: function handleEndpoint(ctx: EndpointContext): Promise<GatewayResponse> {
      let handler = compiled.get(ctx.endpoint);
      if (!handler) {
        handler = compile({ config: ctx.config, server: ctx.server, api: ctx.api, endpoint: ctx.endpoint });
        compiled.set(ctx.endpoint, handler);
      }
      return handler(ctx);
    },

    guard: async function guardStatic(ctx: GuardContext): Promise<GatewayResponse | null> {
      const labels = ctx.blockAccess.effective;
      if (labels.length === 0) return null;
      const endpoint = staticEndpoint(ctx.path, ctx.blockAccess, ctx.requiredPermission ?? null);
      const scope = routeScope(ctx);
      const plan = bodyPlanFor(ctx.config, ctx.server, null, endpoint);
      if (plan.loginLabels.size > 0) await ctx.access.prepareLogins(plan.loginLabels, ctx.signal);
      const env: BodyEnv = { ctx: { ...ctx, endpoint, api: null }, scope, plan, signal: ctx.signal };
      let refused: BodyOutcome | null;
      try {
        refused = await passAccessControls(labels, env, logger);
        // An api's permission for its unrouted paths: its 403 (or 405) is thrown, as a route's before its blocks ran.
        if (!refused && endpoint.requiredPermission !== null) checkPermission(env.ctx, scope);
      } finally {
        if (ctx.customLogFields.length > 0) ctx.log.blockCustom = evalCustomLogFields(ctx.customLogFields, scope, (error) => logCustomFieldsError(ctx.logSink, ctx.request.id, error));
      }
      if (!refused) return null;
      const response = applyResponseContexts({ ...refused.response }, refused.contexts);
      if (response.warning !== undefined) logger?.warn(response.warning, { endpoint: endpoint.path, uid: ctx.request.id });
      return { status: response.status, headers: response.headers, body: response.body };
    },
  };
}

/** One request through a compiled endpoint. */
interface EndpointRun {
  readonly ctx: EndpointContext;
  readonly scope: RequestScope;
  readonly env: BodyEnv;
  /** An access control refused and its error handler answered. */
  refused: boolean;
  /** The check of the methods a form body names by `_method`, run with the request's own (checkMethods). */
  bodyMethodCheck: (() => void) | null;
}

/** A step of an endpoint's chain: does its part and runs the rest (`next`), or answers itself. */
type EndpointStep = (run: EndpointRun, next: (run: EndpointRun) => Promise<BodyOutcome>) => Promise<BodyOutcome>;

function compose(steps: readonly EndpointStep[], last: (run: EndpointRun) => Promise<BodyOutcome>): (run: EndpointRun) => Promise<BodyOutcome> {
  return steps.reduceRight<(run: EndpointRun) => Promise<BodyOutcome>>((next, step) => (run) => step(run, next), last);
}

/** The general endpoint: only the steps the route uses, then its blocks, then the response modifiers of every context. */
function compileEndpoint({ config, server, api, endpoint }: EndpointRoute, logger: EndpointHandlerOptions['logger']): RouteHandler {
  const plan = bodyPlanFor(config, server, api, endpoint);
  const labels = endpoint.access.effective;
  const steps: EndpointStep[] = [];
  if (plan.loginLabels.size > 0) steps.push(prepareLogins(plan.loginLabels));
  const buffer = plan.clientBody || plan.formModifiers || plan.formMethodOverride ? bufferClientBody(plan) : null;
  // The body before the access controls only when they read it: else a client without credentials gets its 401 with the body unread.
  const bodyFirst = labels.length === 0 || plan.accessClientBody;
  if (buffer && bodyFirst) steps.push(buffer);
  if (labels.length > 0) steps.push(accessControls(labels, logger));
  if (buffer && !bodyFirst) steps.push(buffer);
  if (labels.length > 0 || plan.formMethodOverride) steps.push(checkMethods);
  const run = compose(steps, (endpointRun) => runEndpointBody(endpointRun, logger));
  // Contexts whose modifiers are all unset change nothing: left out.
  const outer: Modifiers[] = [server.modifiers, ...(api ? [api.modifiers] : [])].filter((m) => !unmodified(m));
  const serve = async function serveEndpoint(ctx: EndpointContext, scope: RequestScope): Promise<GatewayResponse> {
    ctx.log.handler = 'endpoint';
    // Its signal is made only when a step reads the body or a response, or an access control needs it.
    const env = new EndpointBodyEnv(ctx, scope, plan);
    const state: EndpointRun = { ctx, scope, env, refused: false, bodyMethodCheck: null };
    const outcome = await run(state);
    return finishOutcome(outcome, outer, scope, ctx, logger, !state.refused && labels.length > 0 && ctx.access.privateCaching(labels));
  };
  const fields = endpoint.customLogFields;
  if (fields.length === 0) {
    return function endpointRequest(ctx: EndpointContext): Promise<GatewayResponse> {
      return serve(ctx, routeScope(ctx));
    };
  }
  return withBlockLogFields(fields, serve);
}

/** Loads what the login URLs of these labels need before anything evaluates them. */
function prepareLogins(labels: ReadonlySet<string>): EndpointStep {
  return async function prepareLoginsStep(run, next) {
    await run.ctx.access.prepareLogins(labels, run.ctx.signal);
    return next(run);
  };
}

/**
 * Buffers the client body when an expression reads it, or a urlencoded POST's for the form
 * modifiers or to check the methods its `_method` fields name (checked with the head's, after
 * the access controls: checkMethods). A multipart POST's `_method` fields are read from the
 * buffered body, or else on the body's way to the backend (an upload stays streamed).
 */
function bufferClientBody(plan: BodyPlan): EndpointStep {
  return async function bufferClientBodyStep(run, next) {
    const { ctx, scope } = run;
    const { method, headers } = ctx.request;
    const formPost = isFormPost(method, headers['content-type']);
    const hasBody = hasClientBody(headers);
    if ((plan.clientBody || ((plan.formModifiers || plan.formMethodOverride) && formPost)) && hasBody) {
      const length = headers['content-length'];
      scope.setBody(await readClientBody(ctx.incoming, typeof length === 'string' ? length : undefined, ctx.endpoint.requestBodyLimit, ctx.signal));
    }
    if (plan.formMethodOverride && hasBody) {
      const allowed = ctx.endpoint.allowedMethods;
      const buffered = scope.bufferedBody();
      let overrides: readonly MethodOverride[] = [];
      if (formPost) overrides = formMethodOverrides(ctx.request, buffered);
      else if (isMultipartPost(method, headers['content-type'])) {
        if (buffered !== null) overrides = await multipartMethodOverrides(ctx.request, buffered);
        else scope.setBodyStream(guardedBody(ctx, (o) => refusedAsOverride(ctx.log, () => checkOverridesAllowed([o], allowed))));
      }
      if (overrides.length > 0) {
        scope.setBodyMethodOverrides(overrides);
        run.bodyMethodCheck = () => refusedAsOverride(ctx.log, () => checkOverridesAllowed(overrides, allowed));
      }
    }
    return next(run);
  };
}

/** The client body through a MultipartOverrideGuard; the request is not destroyed with it, so a refusal still reaches the client (its connection closes after). */
function guardedBody(ctx: EndpointContext, check: (override: MethodOverride) => void): MultipartOverrideGuard {
  const guard = new MultipartOverrideGuard(ctx.request, check);
  const incoming = ctx.incoming;
  incoming.pipe(guard);
  incoming.once('close', () => {
    if (!incoming.complete) guard.destroy(new GatewayError('client_request', 'the client closed the connection before its body ended'));
  });
  return guard;
}

/**
 * The methods, once the access controls passed (docs/gateway.md, "Order"): the request's own and
 * those named by override in its head (left by the dispatch as `methodCheck`) or form body. A
 * refusal (405) is thrown past the endpoint's error handlers, as one before the endpoint would be.
 */
function checkMethods(run: EndpointRun, next: (run: EndpointRun) => Promise<BodyOutcome>): Promise<BodyOutcome> {
  run.ctx.methodCheck?.();
  run.bodyMethodCheck?.();
  return next(run);
}

/** The endpoint's access controls: a refusal answered by an error handler ends the chain here. */
function accessControls(labels: readonly string[], logger: ServeLogger | undefined): EndpointStep {
  return async function accessControlsStep(run, next) {
    const refused = await passAccessControls(labels, run.env, logger);
    if (refused === null) return next(run);
    run.refused = true;
    return refused;
  };
}

/** The permission check and the endpoint's blocks, with its error handlers and the api's. */
function runEndpointBody(run: EndpointRun, logger: ServeLogger | undefined): Promise<BodyOutcome> {
  const { ctx, scope, env } = run;
  return runWithHandlers(ctx.endpoint, ctx.api?.errorHandlers ?? [], env, () => checkPermission(ctx, scope), logger);
}

/**
 * Files and spa blocks (and a protected api's unrouted paths, with the api's permission) run
 * their access controls' error handlers as an endpoint without blocks of its own.
 */
const staticEndpoints = new WeakMap<AccessControl, EndpointConfig>();
function staticEndpoint(path: string, access: AccessControl, requiredPermission: EndpointConfig['requiredPermission']): EndpointConfig {
  let endpoint = staticEndpoints.get(access);
  if (!endpoint) {
    endpoint = {
      pattern: path,
      path,
      range: { filename: '', start: { line: 0, column: 0, byte: 0 }, end: { line: 0, column: 0, byte: 0 } },
      allowedMethods: [],
      requestBodyLimit: 64 * 1024 * 1024,
      access,
      requiredPermission,
      customLogFields: [],
      modifiers: NO_MODIFIERS,
      proxies: [],
      requests: [],
      response: null,
      stages: [],
      errorHandlers: [],
    };
    staticEndpoints.set(access, endpoint);
  }
  return endpoint;
}
