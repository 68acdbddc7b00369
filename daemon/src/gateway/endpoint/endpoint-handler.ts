import type { ErrorHandlerConfig, HandlerBody, Permission } from '../config/model.js';
import type { EndpointContext, EndpointHandler, GatewayResponse } from '../contracts.js';
import { asGatewayError, handlerSpecificity, type GatewayError } from '../errors/error-types.js';
import { evalDyn } from '../eval/eval-dyn.js';
import { FORM_MEDIA_TYPE, mediaType } from '../eval/http-variables.js';
import { RequestScope } from '../eval/request-scope.js';
import { bodyPlanFor } from './body-plan.js';
import { hasClientBody, readClientBody } from './client-body.js';
import { applyResponseContexts, type ResponseContext } from './response-contexts.js';
import { runBody, type BodyEnv, type BodyOutcome } from './run-body.js';

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
      const scope = new RequestScope({ config: ctx.config, request: ctx.request, health: ctx.backends.health, requiredPermission: permissionFor(ctx) });
      const plan = bodyPlanFor(ctx.config, ctx.server, ctx.api, ctx.endpoint);
      const method = ctx.request.method;
      const formPost = method === 'POST' && mediaType(ctx.request.headers['content-type']) === FORM_MEDIA_TYPE;
      if ((plan.clientBody || (plan.formModifiers && formPost)) && hasClientBody(ctx.request.headers)) {
        const length = ctx.request.headers['content-length'];
        scope.setBody(await readClientBody(ctx.incoming, typeof length === 'string' ? length : undefined, ctx.endpoint.requestBodyLimit, ctx.signal));
      }
      const env: BodyEnv = { ctx, scope, plan, signal: ctx.signal };
      const outcome = await runWithHandlers(ctx.endpoint, ctx.api?.errorHandlers ?? [], env);
      const outer: ResponseContext[] = [
        { modifiers: ctx.server.modifiers, scope, status: false },
        ...(ctx.api ? [{ modifiers: ctx.api.modifiers, scope, status: false }] : []),
      ];
      const response = applyResponseContexts({ ...outcome.response }, [...outer, ...outcome.contexts]);
      if (response.warning !== undefined) {
        ctx.log.warnings = [...(ctx.log.warnings ?? []), response.warning];
        logger?.warn(response.warning, { endpoint: ctx.endpoint.path, uid: ctx.request.id });
      }
      return { status: response.status, headers: response.headers, body: response.body };
    },
  };
}

/** Runs `body`; its errors go to the most specific of its own handlers, else of `outer` (the api's for an endpoint). */
async function runWithHandlers(body: HandlerBody, outer: readonly ErrorHandlerConfig[], env: BodyEnv): Promise<BodyOutcome> {
  let error: GatewayError;
  try {
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
  env.ctx.log.handler = `error_handler:${handler.kinds.join(',')}`;
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

/** `request.context.beta_required_permission`: the permission for this method ("" when none). */
function permissionFor(ctx: EndpointContext): string {
  const dyn = ctx.endpoint.requiredPermission;
  if (dyn === null) return '';
  const value: Permission | null = dyn.kind === 'static' ? dyn.value : evalDyn(dyn, new RequestScope({ config: ctx.config, request: ctx.request }));
  if (value === null) return '';
  if (typeof value === 'string') return value;
  return value[ctx.request.method] ?? value['*'] ?? '';
}
