/**
 * Routes that load but can never serve: warnings each apply logs (http/runtime.ts) and
 * `portico config check` prints. Neither leaves a route unprotected, and the peer loads both.
 */
import { METHODS } from 'node:http';
import { accessWarnings } from '../access/access-warnings.js';
import type { GatewayConfig } from './model.js';

/** Every warning of `config`, one line each, naming the route, its file and line. */
export function routeWarnings(config: GatewayConfig): string[] {
  return [...unreceivableMethods(config), ...accessWarnings(config)];
}

/**
 * Allowed methods no request can have: Node's HTTP parser knows a fixed list of methods
 * (`http.METHODS`) and answers 400 to any other before routing, so `allowed_methods = ["BREW"]`
 * loads (it is a valid token, as in the peer) but never serves; the same for the method keys of
 * a `beta_required_permission` object. One warning per endpoint and attribute.
 */
function unreceivableMethods(config: GatewayConfig): string[] {
  const out: string[] = [];
  for (const server of config.servers) {
    for (const endpoint of [...server.endpoints, ...server.apis.flatMap((a) => a.endpoints)]) {
      const permission = endpoint.requiredPermission?.kind === 'static' ? endpoint.requiredPermission.value : null;
      const keyed = permission !== null && typeof permission === 'object' ? Object.keys(permission).map((k) => k.toUpperCase()) : [];
      for (const [attribute, methods] of [['allowed_methods', endpoint.allowedMethods], ['beta_required_permission', keyed]] as const) {
        const never = methods.filter((m) => m !== '*' && !RECEIVABLE_METHODS.has(m));
        if (never.length === 0) continue;
        const { filename, start } = endpoint.range;
        out.push(`endpoint ${JSON.stringify(endpoint.path)} (${filename}:${start.line}): ${attribute} ${never.join(', ')} can never arrive: the HTTP server's parser answers 400 to methods outside its list (${METHODS.join(' ')})`);
      }
    }
  }
  return out;
}

const RECEIVABLE_METHODS: ReadonlySet<string> = new Set(METHODS);
