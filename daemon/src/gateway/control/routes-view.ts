import type { LoginStatus } from '../access/access-check.js';
import type { AccessControl, AccessControlConfig, GatewayConfig, JwtConfig } from '../config/model.js';
import { joinPaths } from '../router/path-pattern.js';
import { unroutedGuards } from '../config/unrouted.js';
import type { AccessControlView, LoginView, RouteView, RoutesView } from './control-types.js';

const STATIC_METHODS = ['GET', 'HEAD'];

/** Every route of a configuration with the access controls that guard it, for the Config views. */
export function routesView(config: GatewayConfig | null, logins: readonly LoginStatus[] = []): RoutesView {
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
    for (const files of server.files) routes.push({ server: name, kind: 'files', path: joinPaths(files.basePath, '/**'), methods: STATIC_METHODS, guards: guards(files.access), permission: null });
    for (const spa of server.spas) for (const path of spa.paths) routes.push({ server: name, kind: 'spa', path, methods: STATIC_METHODS, guards: guards(spa.access), permission: null });
    for (const { api, path } of unroutedGuards(server)) routes.push({ server: name, kind: 'unrouted', path, methods: [...api.allowedMethods], guards: guards(api.access), permission: null });
  }
  routes.sort((a, b) => a.path.localeCompare(b.path));
  return { routes, accessControls: Object.values(config.accessControls).map((ac) => accessControlView(ac, logins.find((l) => l.label === ac.label) ?? null)) };
}

function accessControlView(ac: AccessControlConfig, login: LoginStatus | null): AccessControlView {
  const view = (detail: string): AccessControlView => ({ label: ac.label, kind: ac.kind, detail, login: login && loginView(login) });
  switch (ac.kind) {
    case 'basic_auth': {
      const from = [ac.password !== '' ? (ac.user === '' ? 'password' : `user "${ac.user}"`) : null, ac.htpasswdFile ? `htpasswd file (${Object.keys(ac.htpasswd).length} users)` : null].filter((x) => x !== null);
      return view(`${from.join(' + ') || 'no credentials'}${ac.realm ? `, realm "${ac.realm}"` : ''}`);
    }
    case 'jwt':
      return view(`${sourceText(ac)}, ${ac.jwks ? `key set ${new URL(ac.jwks.url).origin}` : `${ac.algorithm ?? '?'} key`}`);
    case 'beta_oauth2':
      return view(`authorization code at ${new URL(ac.authorizationEndpoint).origin}, client "${ac.client.clientId}", ${ac.verifierMethod === 'ccm_s256' ? 'PKCE' : 'state'}`);
    case 'oidc':
      return view(`OpenID Connect ${ac.configurationUrl}, client "${ac.client.clientId}", ${ac.verifierMethod === null ? 'PKCE or nonce' : ac.verifierMethod === 'ccm_s256' ? 'PKCE' : 'nonce'}`);
    case 'saml':
      return view(`SAML IdP ${ac.idp.entityId}, SP ${ac.spEntityId}`);
  }
}

function loginView(status: LoginStatus): LoginView {
  const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
  return { provider: status.provider, lastError: status.lastError, lastErrorAt: iso(status.lastErrorAt), configurationFetchedAt: iso(status.configurationFetchedAt), usingCachedConfiguration: status.usingCachedConfiguration };
}

function sourceText(ac: JwtConfig): string {
  const s = ac.source;
  if (s.kind === 'header') return s.name === 'authorization' ? 'Authorization bearer' : `header ${s.name}`;
  if (s.kind === 'cookie') return `cookie ${s.name}`;
  return 'token_value';
}
