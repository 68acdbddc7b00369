/**
 * Routes no request can pass: a basic_auth and a jwt that reads its token from the
 * Authorization header (`Bearer`, the jwt's default) both guarding one route. A request has
 * one Authorization header, `Basic` or `Bearer`, so one of the two always refuses and the
 * route answers 401 to everything. It is not unprotected, and the peer loads it too, so it
 * loads with a warning (config/route-warnings.ts).
 */
import type { Range } from '../../hcl/index.js';
import type { AccessControlConfig, GatewayConfig } from '../config/model.js';

type Scheme = 'Basic' | 'Bearer';

function schemeOf(control: AccessControlConfig | undefined): Scheme | null {
  if (control?.kind === 'basic_auth') return 'Basic';
  if (control?.kind === 'jwt' && control.source.kind === 'header' && control.source.name === 'authorization') return 'Bearer';
  return null;
}

/** One warning per route whose access controls read both Basic and Bearer credentials from the Authorization header. */
export function authorizationConflicts(config: GatewayConfig): string[] {
  const out: string[] = [];
  const check = (what: string, range: Range, effective: readonly string[]): void => {
    const first: Partial<Record<Scheme, string>> = {};
    for (const label of effective) {
      const scheme = schemeOf(config.accessControls[label]);
      if (scheme !== null) first[scheme] ??= label;
    }
    if (first.Basic === undefined || first.Bearer === undefined) return;
    out.push(
      `${what} (${range.filename}:${range.start.line}) can never be passed: its access controls ${JSON.stringify(first.Basic)} (basic_auth) and ${JSON.stringify(first.Bearer)} (jwt, a Bearer token) both read the Authorization header, ` +
        `which a request has once, so every request is refused with 401; read the jwt's token from another header, a cookie or token_value, or leave one of them out here (disable_access_control)`,
    );
  };
  for (const server of config.servers) {
    for (const endpoint of [...server.endpoints, ...server.apis.flatMap((a) => a.endpoints)]) check(`endpoint ${JSON.stringify(endpoint.path)}`, endpoint.range, endpoint.access.effective);
    for (const files of server.files) check(`files ${JSON.stringify(files.basePath)}`, files.range, files.access.effective);
    for (const spa of server.spas) check(`spa ${JSON.stringify(spa.basePath)}`, spa.range, spa.access.effective);
  }
  return out;
}
