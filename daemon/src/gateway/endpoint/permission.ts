import type { Permission } from '../config/model.js';
import type { EndpointContext } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { evalDyn } from '../eval/eval-dyn.js';
import type { RequestScope } from '../eval/request-scope.js';
import { methodOverrides, refusedAsOverride, STANDARD_METHODS, type MethodOverride } from '../http/method-override.js';
import { MultipartOverrideGuard } from '../http/multipart-method-override.js';

/**
 * `beta_required_permission`, checked once the access controls passed (so a permission
 * expression may read `request.context`): a method missing from a per-method object is not
 * permitted (405); a permission not granted is `beta_insufficient_permissions`, which the
 * endpoint's and api's error handlers can catch. A method the request names by override
 * (http/method-override.ts) is checked as its own method is.
 */
export function checkPermission(ctx: EndpointContext, scope: RequestScope): void {
  const dyn = ctx.endpoint.requiredPermission;
  if (dyn === null) return;
  const value = evalDyn<Permission | Record<string, unknown>>(dyn, scope);
  if (value === null) return;
  const method = ctx.request.method;
  let required: string;
  let alsoRequired: string[] = [];
  if (typeof value === 'string') required = value;
  else if (typeof value === 'object' && !Array.isArray(value)) {
    const byMethod = upperKeys(value);
    required = permissionFor(byMethod, method, method);
    // A method named by an override header or `_method` (query, or a form body read for it) needs its own permission too.
    const named = [...methodOverrides(ctx.request), ...scope.bodyMethodOverrides()];
    if (named.length > 0) alsoRequired = refusedAsOverride(ctx.log, () => named.map((o) => permissionFor(byMethod, o.method, described(o))));
    // A multipart body read on its way to the backend: each `_method` field as it comes.
    const streamed = scope.bodyStream();
    if (streamed instanceof MultipartOverrideGuard) {
      streamed.alsoCheck((o) => requireGranted(ctx, scope, refusedAsOverride(ctx.log, () => permissionFor(byMethod, o.method, described(o)))));
    }
  } else throw new GatewayError('evaluation', 'beta_required_permission must give a string or an object of strings');
  scope.setRequiredPermission(required);
  for (const p of [required, ...alsoRequired]) requireGranted(ctx, scope, p);
}

function described(o: MethodOverride): string {
  return `${o.method} (named by ${o.via})`;
}

/** `beta_insufficient_permissions` unless `permission` is empty or granted. */
function requireGranted(ctx: EndpointContext, scope: RequestScope, permission: string): void {
  if (permission === '' || scope.grantedPermissions.includes(permission)) return;
  ctx.log.denial = { type: 'beta_insufficient_permissions', label: null };
  throw new GatewayError('beta_insufficient_permissions', `required permission ${JSON.stringify(permission)} not granted${scope.grantedPermissions.length === 0 ? ' (no permissions granted)' : ''}`);
}

/** The permission a per-method object gives `method`; a method it does not name is not permitted (405). */
function permissionFor(byMethod: Readonly<Record<string, unknown>>, method: string, described: string): string {
  const found = byMethod[method] ?? (STANDARD_METHODS.includes(method) ? byMethod['*'] : undefined);
  if (found === undefined) {
    const permitted = STANDARD_METHODS.filter((m) => byMethod[m] !== undefined || byMethod['*'] !== undefined).concat(Object.keys(byMethod).filter((m) => m !== '*' && !STANDARD_METHODS.includes(m)));
    throw new GatewayError('method_not_allowed', `method ${described} is not permitted by beta_required_permission`, { headers: { Allow: permitted.join(', ') } });
  }
  if (typeof found !== 'string') throw new GatewayError('evaluation', `beta_required_permission for ${method} is not a string`);
  return found;
}

function upperKeys(value: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k === '*' ? '*' : k.toUpperCase()] = v;
  return out;
}
