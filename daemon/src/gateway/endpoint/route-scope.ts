import type { EndpointContext } from '../contracts.js';
import { RequestScope } from '../eval/request-scope.js';

/** The variables of a request on a route: its configuration, backends' health and login controls. */
export function routeScope(ctx: Pick<EndpointContext, 'config' | 'request' | 'backends' | 'access'>): RequestScope {
  return new RequestScope({ config: ctx.config, request: ctx.request, health: ctx.backends.health, access: ctx.access });
}
