import type { AccessControl, AccessControlConfig, GatewayConfig, JwtConfig } from '../config/model.js';
import type { AccessControlView, RouteView, RoutesView } from './control-types.js';

const STATIC_METHODS = ['GET', 'HEAD'];

/** Every route of a configuration with the access controls that guard it, for the Config views. */
export function routesView(config: GatewayConfig | null): RoutesView {
  if (!config) return { routes: [], accessControls: [] };
  const guards = (access: AccessControl): RouteView['guards'] =>
    access.effective.flatMap((label) => {
      const ac = config.accessControls[label];
      return ac ? [{ label, kind: ac.kind }] : [];
    });
  const routes: RouteView[] = [];
  for (const server of config.servers) {
    const name = server.name;
    for (const endpoint of [...server.endpoints, ...server.apis.flatMap((a) => a.endpoints)]) {
      const p = endpoint.requiredPermission;
      const permission = p === null ? null : p.kind === 'expr' ? 'expression' : typeof p.value === 'string' ? p.value : { ...p.value };
      routes.push({ server: name, kind: 'endpoint', path: endpoint.path, methods: [...endpoint.allowedMethods], guards: guards(endpoint.access), permission });
    }
    for (const files of server.files) routes.push({ server: name, kind: 'files', path: `${files.basePath.replace(/\/$/, '')}/**`, methods: STATIC_METHODS, guards: guards(files.access), permission: null });
    for (const spa of server.spas) for (const path of spa.paths) routes.push({ server: name, kind: 'spa', path, methods: STATIC_METHODS, guards: guards(spa.access), permission: null });
  }
  routes.sort((a, b) => a.path.localeCompare(b.path));
  return { routes, accessControls: Object.values(config.accessControls).map(accessControlView) };
}

function accessControlView(ac: AccessControlConfig): AccessControlView {
  if (ac.kind === 'basic_auth') {
    const from = [ac.password !== '' ? (ac.user === '' ? 'password' : `user "${ac.user}"`) : null, ac.htpasswdFile ? `htpasswd file (${Object.keys(ac.htpasswd).length} users)` : null].filter((x) => x !== null);
    return { label: ac.label, kind: 'basic_auth', detail: `${from.join(' + ') || 'no credentials'}${ac.realm ? `, realm "${ac.realm}"` : ''}` };
  }
  return { label: ac.label, kind: 'jwt', detail: `${sourceText(ac)}, ${ac.jwks ? `key set ${new URL(ac.jwks.url).origin}` : `${ac.algorithm ?? '?'} key`}` };
}

function sourceText(ac: JwtConfig): string {
  const s = ac.source;
  if (s.kind === 'header') return s.name === 'authorization' ? 'Authorization bearer' : `header ${s.name}`;
  if (s.kind === 'cookie') return `cookie ${s.name}`;
  return 'token_value';
}
