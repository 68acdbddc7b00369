import type { CustomLogFields } from '../config/model.js';
import type { EndpointContext, GatewayResponse } from '../contracts.js';
import { evalCustomLogFields } from '../eval/eval-dyn.js';
import { RequestScope } from '../eval/request-scope.js';
import { logCustomFieldsError } from '../logs/log-sink.js';

/** The variables of a request on a route: its configuration, backends' health and login controls. */
export function routeScope(ctx: Pick<EndpointContext, 'config' | 'request' | 'backends' | 'access'>): RequestScope {
  return new RequestScope({ config: ctx.config, request: ctx.request, health: ctx.backends.health, access: ctx.access });
}

/**
 * A route's handler that evaluates the block's `custom_log_fields` (server → api → endpoint)
 * once `serve` answered or failed, in the scope it served with: they see what it saw.
 */
export function withBlockLogFields(fields: CustomLogFields, serve: (ctx: EndpointContext, scope: RequestScope) => Promise<GatewayResponse>): (ctx: EndpointContext) => Promise<GatewayResponse> {
  return async function routeRequestWithLogFields(ctx: EndpointContext): Promise<GatewayResponse> {
    const scope = routeScope(ctx);
    try {
      return await serve(ctx, scope);
    } finally {
      ctx.log.blockCustom = evalCustomLogFields(fields, scope, (error) => logCustomFieldsError(ctx.logSink, ctx.request.id, error));
    }
  };
}
