/**
 * Routes no request can pass, though their access controls load (as in the peer) and leave
 * nothing unprotected: each apply logs a warning naming them (config/route-warnings.ts).
 *
 * - A basic_auth and a jwt that reads its token from the Authorization header (`Bearer`, the
 *   jwt's default) both guarding one route: a request has one Authorization header, `Basic`
 *   or `Bearer`, so one of the two always refuses.
 * - A basic_auth with no password and no user in an htpasswd_file (an unset environment
 *   variable, an empty file): it admits no one.
 */
import type { Range } from '../../hcl/index.js';
import type { AccessControlConfig, GatewayConfig } from '../config/model.js';

interface GuardedRoute {
  /** `endpoint "/x"`, `files "/"`, `spa "/app"`. */
  readonly what: string;
  readonly range: Range;
  readonly labels: readonly string[];
}

function guardedRoutes(config: GatewayConfig): GuardedRoute[] {
  const out: GuardedRoute[] = [];
  for (const server of config.servers) {
    for (const endpoint of [...server.endpoints, ...server.apis.flatMap((a) => a.endpoints)]) out.push({ what: `endpoint ${JSON.stringify(endpoint.path)}`, range: endpoint.range, labels: endpoint.access.effective });
    for (const files of server.files) out.push({ what: `files ${JSON.stringify(files.basePath)}`, range: files.range, labels: files.access.effective });
    for (const spa of server.spas) out.push({ what: `spa ${JSON.stringify(spa.basePath)}`, range: spa.range, labels: spa.access.effective });
  }
  return out;
}

const at = (range: Range): string => `${range.filename}:${range.start.line}`;

/** Every access-control warning of `config`, one line each. */
export function accessWarnings(config: GatewayConfig): string[] {
  const routes = guardedRoutes(config);
  return [...authorizationConflicts(config, routes), ...controlsAdmittingNoOne(config, routes)];
}

type Scheme = 'Basic' | 'Bearer';

function schemeOf(control: AccessControlConfig | undefined): Scheme | null {
  if (control?.kind === 'basic_auth') return 'Basic';
  if (control?.kind === 'jwt' && control.source.kind === 'header' && control.source.name === 'authorization') return 'Bearer';
  return null;
}

function authorizationConflicts(config: GatewayConfig, routes: readonly GuardedRoute[]): string[] {
  const out: string[] = [];
  for (const { what, range, labels } of routes) {
    const first: Partial<Record<Scheme, string>> = {};
    for (const label of labels) {
      const scheme = schemeOf(config.accessControls[label]);
      if (scheme !== null) first[scheme] ??= label;
    }
    if (first.Basic === undefined || first.Bearer === undefined) continue;
    out.push(
      `${what} (${at(range)}) can never be passed: its access controls ${JSON.stringify(first.Basic)} (basic_auth) and ${JSON.stringify(first.Bearer)} (jwt, a Bearer token) both read the Authorization header, ` +
        `which a request has once, so every request is refused with 401; read the jwt's token from another header, a cookie or token_value, or leave one of them out here (disable_access_control)`,
    );
  }
  return out;
}

/** One warning per basic_auth that admits no one and guards a route, naming the routes. */
function controlsAdmittingNoOne(config: GatewayConfig, routes: readonly GuardedRoute[]): string[] {
  const out: string[] = [];
  for (const control of Object.values(config.accessControls)) {
    if (control.kind !== 'basic_auth' || control.password !== '' || Object.keys(control.htpasswd).length > 0) continue;
    const guarded = routes.filter((r) => r.labels.includes(control.label)).map((r) => r.what);
    if (guarded.length === 0) continue;
    const why = control.htpasswdFile === null ? 'it has no password and no htpasswd_file' : `it has no password and its htpasswd_file ${control.htpasswdFile} names no user`;
    out.push(
      `basic_auth ${JSON.stringify(control.label)} (${at(control.range)}) admits no one: ${why}, so ${guarded.length === 1 ? 'the route it guards' : 'the routes it guards'} (${guarded.join(', ')}) ${guarded.length === 1 ? 'refuses' : 'refuse'} every request with 401; ` +
        `set its password (an environment variable it reads may be unset) or list users in an htpasswd_file`,
    );
  }
  return out;
}
