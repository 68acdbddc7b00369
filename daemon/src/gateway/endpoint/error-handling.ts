/**
 * What an endpoint does when something on its way fails, for the general handler and the plain
 * proxy handler alike: a refusal goes to the refusing access control's error handlers, any other
 * error to the endpoint's and then its api's (the most specific one answers), and the answer of
 * a handler gets the response modifiers of server and api before its own.
 */
import { addPrivateCaching } from '../access/private-caching.js';
import type { ErrorHandlerConfig, HandlerBody, Modifiers } from '../config/model.js';
import type { EndpointContext, GatewayResponse } from '../contracts.js';
import { asGatewayError, GatewayError, handlerSpecificity } from '../errors/error-types.js';
import { evalCustomLogFields } from '../eval/eval-dyn.js';
import type { RequestScope } from '../eval/request-scope.js';
import { logCustomFieldsError } from '../logs/log-sink.js';
import { noteRefusal } from './access-refusal.js';
import { discardBody } from './read-all.js';
import { applyResponseContexts, type ModifiedResponse, type ResponseContext } from './response-contexts.js';
import { runBody, type BodyEnv, type BodyOutcome } from './run-body.js';

/** Receives configuration warnings met while serving (e.g. `set_response_status = 204` dropping a body). */
export interface ServeLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Runs the access controls; null when every one passes. A refusal goes to the failing
 * control's own error_handler (most specific); unhandled, it is thrown with its challenge.
 */
export async function passAccessControls(labels: readonly string[], env: BodyEnv, logger?: ServeLogger): Promise<BodyOutcome | null> {
  try {
    await env.ctx.access.enforce(labels, env.scope, env.ctx.log, env);
    return null;
  } catch (thrown) {
    return answerRefusal(thrown, env, logger);
  }
}

/** A refusal answered by the refusing control's most specific error handler; thrown (noted in the log) when none answers. */
export async function answerRefusal(thrown: unknown, env: BodyEnv, logger?: ServeLogger): Promise<BodyOutcome> {
  const error = noteRefusal(thrown, env.ctx.log);
  const handlers = error.source === null ? [] : (env.ctx.config.accessControls[error.source]?.errorHandlers ?? []);
  const handler = mostSpecific(handlers, error);
  if (!handler) throw error;
  chosen(handler, env);
  const handled = await runHandler(handler, error, env, logger);
  if (!handled) throw error;
  return handled;
}

/** Runs `body`; its errors go to the most specific of its own handlers, else of `outer` (the api's for an endpoint). */
export async function runWithHandlers(body: HandlerBody, outer: readonly ErrorHandlerConfig[], env: BodyEnv, before?: () => void, logger?: ServeLogger): Promise<BodyOutcome> {
  let error: GatewayError;
  try {
    before?.();
    const outcome = await runBody(body, env);
    if (outcome) return outcome;
    error = asGatewayError(new Error('the endpoint produced no response: it has neither a response block nor a default proxy or request'));
  } catch (thrown) {
    error = asGatewayError(thrown);
  }
  return answerError(error, body.errorHandlers, outer, env, logger);
}

/** `error` (noted in the log) answered by the most specific of `own`, else of `outer`; thrown when none answers. */
export async function answerError(error: GatewayError, own: readonly ErrorHandlerConfig[], outer: readonly ErrorHandlerConfig[], env: BodyEnv, logger?: ServeLogger): Promise<BodyOutcome> {
  env.ctx.log.errorType = error.kind;
  env.ctx.log.errorDetail = error.detail;
  const handler = mostSpecific(own, error) ?? mostSpecific(outer, error);
  if (!handler) throw error;
  chosen(handler, env);
  const handled = await runHandler(handler, error, env, logger);
  // A handler that gives no response (only requests, e.g. a notification) leaves the error to be rendered, with its modifiers.
  if (!handled) throw error;
  return handled;
}

/**
 * The client response of an outcome: the response modifiers of `outer` (server, api) first, then
 * the outcome's own. A failing modifier's error is thrown (and answered instead), a streamed body
 * nobody will read let go.
 */
export function finishOutcome(outcome: BodyOutcome, outer: readonly Modifiers[], scope: RequestScope, ctx: EndpointContext, logger: ServeLogger | undefined, privateCaching: boolean): GatewayResponse {
  const contexts: ResponseContext[] = outer.map((modifiers) => ({ modifiers, scope, status: false }));
  let response: ModifiedResponse;
  try {
    response = applyResponseContexts({ ...outcome.response }, contexts.length === 0 ? outcome.contexts : [...contexts, ...outcome.contexts]);
  } catch (thrown) {
    const body = outcome.response.body;
    if (body !== null && !Buffer.isBuffer(body)) discardBody(body);
    throw thrown;
  }
  if (response.warning !== undefined) logger?.warn(response.warning, { endpoint: ctx.endpoint.path, uid: ctx.request.id });
  if (privateCaching) addPrivateCaching(response.headers);
  return { status: response.status, headers: response.headers, body: response.body };
}

/** Names the handler that answers in the access line, with its custom_log_fields. */
function chosen(handler: ErrorHandlerConfig, env: BodyEnv): void {
  env.ctx.log.handler = `error_handler:${handler.kinds.join(',')}`;
  if (handler.customLogFields.length === 0) return;
  env.ctx.log.handlerCustom = evalCustomLogFields(handler.customLogFields, env.scope, (error) => logCustomFieldsError(env.ctx.logSink, env.ctx.request.id, error, 'error_handler'));
}

/**
 * Runs a handler for `handled`. With no response of its own it gives null and leaves `handled`
 * to be rendered, its response modifiers and `set_response_status` applied to that answer (the
 * peer answers `set_response_status = 418` in a basic_auth handler with 418).
 */
async function runHandler(handler: ErrorHandlerConfig, handled: GatewayError, env: BodyEnv, logger: ServeLogger | undefined): Promise<BodyOutcome | null> {
  try {
    const outcome = await runBody(handler, env);
    if (outcome) return outcome;
    if (hasResponseModifiers(handler.modifiers)) handled.finish = (answer) => modifyRendered(answer, handler.modifiers, env, logger);
    return null;
  } catch (thrown) {
    const error = asGatewayError(thrown);
    env.ctx.log.errorType = error.kind;
    env.ctx.log.errorDetail = error.detail;
    const nested = mostSpecific(handler.errorHandlers, error);
    if (!nested) throw error;
    chosen(nested, env);
    const answered = await runHandler(nested, error, env, logger);
    if (!answered) throw error;
    return answered;
  }
}

function hasResponseModifiers(modifiers: Modifiers): boolean {
  return modifiers.setResponseStatus !== null || modifiers.removeResponseHeaders !== null || modifiers.setResponseHeaders !== null || modifiers.addResponseHeaders !== null;
}

/** A rendered error answer with a handler's response modifiers; a 204 drops the body, with a warning for the daemon logger. */
function modifyRendered(answer: GatewayResponse, modifiers: Modifiers, env: BodyEnv, logger: ServeLogger | undefined): GatewayResponse {
  const modified = applyResponseContexts({ status: answer.status, headers: answer.headers, body: answer.body }, [{ modifiers, scope: env.scope, status: true }]);
  if (modified.warning !== undefined) logger?.warn(modified.warning, { endpoint: env.ctx.endpoint.path, uid: env.ctx.request.id });
  return { status: modified.status, headers: modified.headers, body: modified.body };
}

function mostSpecific(handlers: readonly ErrorHandlerConfig[], error: GatewayError): ErrorHandlerConfig | undefined {
  let best: { handler: ErrorHandlerConfig; depth: number } | undefined;
  for (const handler of handlers) {
    const depth = handlerSpecificity(handler.kinds, error.kind);
    if (depth !== null && (best === undefined || depth < best.depth)) best = { handler, depth };
  }
  return best?.handler;
}
