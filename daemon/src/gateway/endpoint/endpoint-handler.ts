import type { AccessControl, EndpointConfig, ErrorHandlerConfig, HandlerBody, Permission } from '../config/model.js';
import type { EndpointContext, EndpointHandler, GatewayResponse, GuardContext } from '../contracts.js';
import { asGatewayError, GatewayError, handlerSpecificity } from '../errors/error-types.js';
import { addPrivateCaching } from '../access/private-caching.js';
import { evalCustomLogFields, evalDyn } from '../eval/eval-dyn.js';
import { FORM_MEDIA_TYPE, mediaType } from '../eval/http-variables.js';
import { RequestScope } from '../eval/request-scope.js';
import { bodyPlanFor } from './body-plan.js';
import { hasClientBody, readClientBody } from './client-body.js';
import { applyResponseContexts, type ResponseContext } from './response-contexts.js';
import { runBody, type BodyEnv, type BodyOutcome } from './run-body.js';
import { NO_MODIFIERS } from '../config/build-common.js';

/**
 * Serves routed endpoint requests: buffers the client body only when the endpoint's
 * expressions read it, runs the endpoint's blocks, catches errors with the most specific
 * error_handler (the endpoint's before the api's), and applies the response modifiers of
 * server, api, endpoint, proxy, backend and error_handler in that order.
 */
export interface EndpointHandlerOptions {
  /** Receives configuration warnings met while serving (e.g. `set_response_status = 204` dropping a body). */
  readonly logger?: { warn(message: string, fields?: Record<string, unknown>): void };
}

export function createEndpointHandler({ logger }: EndpointHandlerOptions = {}): EndpointHandler {
  return {
    handle: async function handleEndpoint(ctx: EndpointContext): Promise<GatewayResponse> {
      ctx.log.handler = 'endpoint';
      const scope = new RequestScope({ config: ctx.config, request: ctx.request, health: ctx.backends.health, access: ctx.access });
      const plan = bodyPlanFor(ctx.config, ctx.server, ctx.api, ctx.endpoint);
      if (plan.loginLabels.size > 0) await ctx.access.prepareLogins(plan.loginLabels, ctx.signal);
      const method = ctx.request.method;
      const formPost = method === 'POST' && mediaType(ctx.request.headers['content-type']) === FORM_MEDIA_TYPE;
      if ((plan.clientBody || (plan.formModifiers && formPost)) && hasClientBody(ctx.request.headers)) {
        const length = ctx.request.headers['content-length'];
        scope.setBody(await readClientBody(ctx.incoming, typeof length === 'string' ? length : undefined, ctx.endpoint.requestBodyLimit, ctx.signal));
      }
      const env: BodyEnv = { ctx, scope, plan, signal: ctx.signal };
      const labels = ctx.endpoint.access.effective;
      const refused = labels.length === 0 ? null : await passAccessControls(labels, env);
      const outcome = refused ?? (await runWithHandlers(ctx.endpoint, ctx.api?.errorHandlers ?? [], env, () => checkPermission(ctx, scope)));
      const outer: ResponseContext[] = [
        { modifiers: ctx.server.modifiers, scope, status: false },
        ...(ctx.api ? [{ modifiers: ctx.api.modifiers, scope, status: false }] : []),
      ];
      const response = applyResponseContexts({ ...outcome.response }, [...outer, ...outcome.contexts]);
      if (response.warning !== undefined) {
        ctx.log.warnings = [...(ctx.log.warnings ?? []), response.warning];
        logger?.warn(response.warning, { endpoint: ctx.endpoint.path, uid: ctx.request.id });
      }
      if (refused === null && labels.length > 0 && ctx.access.privateCaching(labels)) addPrivateCaching(response.headers);
      return { status: response.status, headers: response.headers, body: response.body };
    },

    guard: async function guardStatic(ctx: GuardContext): Promise<GatewayResponse | null> {
      const labels = ctx.blockAccess.effective;
      if (labels.length === 0) return null;
      const endpoint = staticEndpoint(ctx.path, ctx.blockAccess);
      const scope = new RequestScope({ config: ctx.config, request: ctx.request, health: ctx.backends.health, access: ctx.access });
      const plan = bodyPlanFor(ctx.config, ctx.server, null, endpoint);
      if (plan.loginLabels.size > 0) await ctx.access.prepareLogins(plan.loginLabels, ctx.signal);
      const env: BodyEnv = { ctx: { ...ctx, endpoint, api: null }, scope, plan, signal: ctx.signal };
      const refused = await passAccessControls(labels, env);
      if (!refused) return null;
      const response = applyResponseContexts({ ...refused.response }, refused.contexts);
      return { status: response.status, headers: response.headers, body: response.body };
    },
  };
}

/**
 * Runs the access controls; null when every one passes. A refusal goes to the failing
 * control's own error_handler (most specific); unhandled, it is thrown with its challenge.
 */
async function passAccessControls(labels: readonly string[], env: BodyEnv): Promise<BodyOutcome | null> {
  try {
    await env.ctx.access.enforce(labels, env.scope, env.ctx.log, env.signal);
    return null;
  } catch (thrown) {
    const error = asGatewayError(thrown, 'access_control');
    env.ctx.log.errorType = error.kind;
    env.ctx.log.errorDetail = error.detail;
    env.ctx.log.denial = { type: error.kind, label: error.source };
    const handlers = error.source === null ? [] : (env.ctx.config.accessControls[error.source]?.errorHandlers ?? []);
    const handler = mostSpecific(handlers, error);
    if (!handler) throw error;
    chosen(handler, env);
    const handled = await runHandler(handler, env);
    if (!handled) throw error;
    return handled;
  }
}

/** Names the handler that answers in the access line, with its custom_log_fields. */
function chosen(handler: ErrorHandlerConfig, env: BodyEnv): void {
  env.ctx.log.handler = `error_handler:${handler.kinds.join(',')}`;
  if (handler.customLogFields.length === 0) return;
  env.ctx.log.handlerCustom = evalCustomLogFields(handler.customLogFields, env.scope, (e) => (env.ctx.log.warnings = [...(env.ctx.log.warnings ?? []), `custom_log_fields of error_handler: ${e.detail}`]));
}

/** Files and spa blocks run their access controls' error handlers as an endpoint without blocks of its own. */
const staticEndpoints = new WeakMap<AccessControl, EndpointConfig>();
function staticEndpoint(path: string, access: AccessControl): EndpointConfig {
  let endpoint = staticEndpoints.get(access);
  if (!endpoint) {
    endpoint = {
      pattern: path,
      path,
      range: { filename: '', start: { line: 0, column: 0, byte: 0 }, end: { line: 0, column: 0, byte: 0 } },
      allowedMethods: [],
      requestBodyLimit: 64 * 1024 * 1024,
      access,
      requiredPermission: null,
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



/** Runs `body`; its errors go to the most specific of its own handlers, else of `outer` (the api's for an endpoint). */
async function runWithHandlers(body: HandlerBody, outer: readonly ErrorHandlerConfig[], env: BodyEnv, before?: () => void): Promise<BodyOutcome> {
  let error: GatewayError;
  try {
    before?.();
    const outcome = await runBody(body, env);
    if (outcome) return outcome;
    error = asGatewayError(new Error('the endpoint produced no response: it has neither a response block nor a default proxy or request'));
  } catch (thrown) {
    error = asGatewayError(thrown);
  }
  env.ctx.log.errorType = error.kind;
  env.ctx.log.errorDetail = error.detail;
  const handler = mostSpecific(body.errorHandlers, error) ?? mostSpecific(outer, error);
  if (!handler) throw error;
  chosen(handler, env);
  const handled = await runHandler(handler, env);
  // A handler that gives no response (only requests, e.g. a notification) leaves the error to be rendered.
  if (!handled) throw error;
  return handled;
}

async function runHandler(handler: ErrorHandlerConfig, env: BodyEnv): Promise<BodyOutcome | null> {
  try {
    const outcome = await runBody(handler, env);
    if (outcome) return outcome;
    // Its modifiers (headers, status) still apply to nothing: the original error is rendered.
    return null;
  } catch (thrown) {
    const error = asGatewayError(thrown);
    env.ctx.log.errorType = error.kind;
    env.ctx.log.errorDetail = error.detail;
    const nested = mostSpecific(handler.errorHandlers, error);
    if (!nested) throw error;
    chosen(nested, env);
    const handled = await runHandler(nested, env);
    if (!handled) throw error;
    return handled;
  }
}

function mostSpecific(handlers: readonly ErrorHandlerConfig[], error: GatewayError): ErrorHandlerConfig | undefined {
  let best: { handler: ErrorHandlerConfig; depth: number } | undefined;
  for (const handler of handlers) {
    const depth = handlerSpecificity(handler.kinds, error.kind);
    if (depth !== null && (best === undefined || depth < best.depth)) best = { handler, depth };
  }
  return best?.handler;
}

/**
 * `beta_required_permission`, checked once the access controls passed (so a permission
 * expression may read `request.context`): a method missing from a per-method object is not
 * permitted (405); a permission not granted is `beta_insufficient_permissions`, which the
 * endpoint's and api's error handlers can catch.
 */
function checkPermission(ctx: EndpointContext, scope: RequestScope): void {
  const dyn = ctx.endpoint.requiredPermission;
  if (dyn === null) return;
  const value = evalDyn<Permission | Record<string, unknown>>(dyn, scope);
  if (value === null) return;
  const method = ctx.request.method;
  let required: string;
  if (typeof value === 'string') required = value;
  else if (typeof value === 'object' && !Array.isArray(value)) {
    const byMethod = upperKeys(value);
    const found = byMethod[method] ?? (STANDARD_METHODS.includes(method) ? byMethod['*'] : undefined);
    if (found === undefined) {
      const permitted = STANDARD_METHODS.filter((m) => byMethod[m] !== undefined || byMethod['*'] !== undefined).concat(Object.keys(byMethod).filter((m) => m !== '*' && !STANDARD_METHODS.includes(m)));
      throw new GatewayError('method_not_allowed', `method ${method} is not permitted by beta_required_permission`, { headers: { Allow: permitted.join(', ') } });
    }
    if (typeof found !== 'string') throw new GatewayError('evaluation', `beta_required_permission for ${method} is not a string`);
    required = found;
  } else throw new GatewayError('evaluation', 'beta_required_permission must give a string or an object of strings');
  scope.setRequiredPermission(required);
  if (required === '' || scope.grantedPermissions.includes(required)) return;
  ctx.log.denial = { type: 'beta_insufficient_permissions', label: null };
  throw new GatewayError('beta_insufficient_permissions', `required permission ${JSON.stringify(required)} not granted${scope.grantedPermissions.length === 0 ? ' (no permissions granted)' : ''}`);
}

const STANDARD_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

function upperKeys(value: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k === '*' ? '*' : k.toUpperCase()] = v;
  return out;
}
