import type { Block, Range } from '../../hcl/index.js';
import type { LoadScope } from './attr-reader.js';
import type { Backends } from './build-backends.js';
import { basePathOf, buildAccess, buildCors, buildModifiers, joinPaths, logFields, ROOT_INHERITED, single, type Inherited } from './build-common.js';
import { allowedMethods, buildEndpoint, buildErrorHandlers, requiredPermission, STANDARD_METHODS, type EndpointDefaults } from './build-endpoints.js';
import { headerRange, where } from './diagnostics.js';
import type { FileChecks } from './file-checks.js';
import { serverHosts, type ServerHosts } from './hosts.js';
import type { ApiConfig, EndpointConfig, FilesConfig, ServerConfig, SpaConfig } from './model.js';

interface Builders {
  readonly scope: LoadScope;
  readonly backends: Backends;
  readonly files: FileChecks;
}

/** An endpoint with where its label was written, for the duplicate check. */
interface Placed {
  readonly endpoint: EndpointConfig;
  readonly labelRange: Range;
}

const FREE_ENDPOINT: EndpointDefaults = { allowedMethods: STANDARD_METHODS, requiredPermission: null };

export function buildServer(block: Block, defaultPort: number, b: Builders): { server: ServerConfig; hosts: ServerHosts } {
  const { scope } = b;
  const r = scope.reader(block.body, 'server');
  const basePath = basePathOf(r, '/', scope);
  const { access, inherited: acl } = buildAccess(r, ROOT_INHERITED, scope);
  const inherited: Inherited = { basePath, ...acl, customLogFields: logFields(r, []) };
  const hosts = serverHosts(block, defaultPort, scope);
  const placed: Placed[] = [];
  const endpoints = block.body.blocks.filter((c) => c.type === 'endpoint').map((c) => place(placed, c, buildEndpoint(c, inherited, FREE_ENDPOINT, scope, b.backends)));
  const apis = block.body.blocks.filter((c) => c.type === 'api').map((c) => buildApi(c, inherited, placed, b));
  checkDuplicateEndpoints(placed, scope);
  const files = block.body.blocks.filter((c) => c.type === 'files').map((c) => buildFiles(c, inherited, b));
  const spas = block.body.blocks.filter((c) => c.type === 'spa').map((c) => buildSpa(c, inherited, b));
  checkDistinct(files.map((f) => ({ key: f.basePath, range: f.range, what: `files base_path "${f.basePath}"` })), scope);
  checkDistinct(spas.map((s) => ({ key: `${s.basePath} ${s.paths.join(' ')}`, range: s.range, what: `spa base_path "${s.basePath}" with these paths` })), scope);
  return {
    server: {
      name: block.labels[0] ?? null,
      range: headerRange(block),
      hosts: hosts.hosts,
      basePath,
      errorFile: b.files.path(r, 'error_file', 'file'),
      access,
      customLogFields: inherited.customLogFields,
      modifiers: buildModifiers(r),
      cors: buildCors(single(block.body.blocks, 'cors', scope), scope),
      files,
      spas,
      apis,
      endpoints,
    },
    hosts,
  };
}

function place(placed: Placed[], block: Block, endpoint: EndpointConfig): EndpointConfig {
  placed.push({ endpoint, labelRange: block.labelRanges[0] ?? block.typeRange });
  return endpoint;
}

function buildApi(block: Block, parent: Inherited, placed: Placed[], b: Builders): ApiConfig {
  const { scope } = b;
  const r = scope.reader(block.body, 'api');
  const basePath = basePathOf(r, parent.basePath, scope);
  const { access, inherited: acl } = buildAccess(r, parent, scope);
  const inherited: Inherited = { basePath, ...acl, customLogFields: logFields(r, parent.customLogFields) };
  const defaults: EndpointDefaults = { allowedMethods: allowedMethods(r, scope) ?? STANDARD_METHODS, requiredPermission: requiredPermission(r, scope) ?? null };
  const children = block.body.blocks.filter((c) => c.type === 'endpoint');
  const endpoints = children.map((c) => place(placed, c, buildEndpoint(c, inherited, defaults, scope, b.backends)));
  if (!r.has('beta_required_permission')) checkPermissionMix(block, children, scope);
  return {
    name: block.labels[0] ?? null,
    range: headerRange(block),
    basePath,
    errorFile: b.files.path(r, 'error_file', 'file'),
    access,
    allowedMethods: defaults.allowedMethods,
    requiredPermission: defaults.requiredPermission,
    customLogFields: inherited.customLogFields,
    modifiers: buildModifiers(r),
    cors: buildCors(single(block.body.blocks, 'cors', scope), scope),
    errorHandlers: buildErrorHandlers(block.body.blocks, inherited.customLogFields, scope, b.backends),
    endpoints,
  };
}

/**
 * The spec's rule 4: in an api with at least two endpoints and no api-wide permission,
 * once one endpoint sets beta_required_permission, every endpoint must set it or
 * disable_access_control, so none is left open by mistake.
 */
function checkPermissionMix(api: Block, endpoints: readonly Block[], scope: LoadScope): void {
  if (endpoints.length < 2) return;
  const has = (e: Block, name: string): boolean => name in e.body.attributes;
  const withPermission = endpoints.find((e) => has(e, 'beta_required_permission'));
  if (!withPermission) return;
  const label = api.labels[0];
  for (const e of endpoints) {
    if (has(e, 'beta_required_permission') || has(e, 'disable_access_control')) continue;
    scope.diags.error(
      'Missing beta_required_permission',
      `api ${label === undefined ? 'without label' : `with label "${label}"`} has endpoint without required permission: set beta_required_permission or disable_access_control here, as the endpoint at ${where(withPermission.typeRange)} sets beta_required_permission.`,
      headerRange(e),
    );
  }
}

/** Two endpoints of one server may not match the same paths: `{name}` segments compare equal whatever the name, and a trailing slash does not count. */
function checkDuplicateEndpoints(placed: readonly Placed[], scope: LoadScope): void {
  const seen = new Map<string, Placed>();
  for (const p of placed) {
    const key = p.endpoint.path.replace(/\{[^}]*\}/g, '{}').replace(/(.)\/+$/, '$1');
    const previous = seen.get(key);
    if (previous) {
      scope.diags.error('Duplicate endpoint', `The endpoint "${p.endpoint.path}" is already defined at ${where(previous.labelRange)} (as "${previous.endpoint.path}"); paths are compared after joining base paths, whatever the {parameter} names, and "/a/" routes as "/a".`, p.labelRange);
      continue;
    }
    seen.set(key, p);
  }
}

function checkDistinct(items: readonly { key: string; range: Range; what: string }[], scope: LoadScope): void {
  const seen = new Map<string, Range>();
  for (const item of items) {
    const previous = seen.get(item.key);
    if (previous) scope.diags.error('Duplicate block', `The ${item.what} is already served by the block at ${where(previous)}.`, item.range);
    else seen.set(item.key, item.range);
  }
}

function buildFiles(block: Block, parent: Inherited, b: Builders): FilesConfig {
  const { scope } = b;
  const r = scope.reader(block.body, 'files');
  return {
    name: block.labels[0] ?? null,
    range: headerRange(block),
    basePath: basePathOf(r, parent.basePath, scope),
    documentRoot: b.files.path(r, 'document_root', 'directory') ?? '',
    errorFile: b.files.path(r, 'error_file', 'file'),
    access: buildAccess(r, parent, scope).access,
    customLogFields: logFields(r, parent.customLogFields),
    modifiers: buildModifiers(r),
    cors: buildCors(single(block.body.blocks, 'cors', scope), scope),
  };
}

function buildSpa(block: Block, parent: Inherited, b: Builders): SpaConfig {
  const { scope } = b;
  const r = scope.reader(block.body, 'spa');
  const basePath = basePathOf(r, parent.basePath, scope);
  return {
    name: block.labels[0] ?? null,
    range: headerRange(block),
    basePath,
    bootstrapFile: b.files.path(r, 'bootstrap_file', 'file') ?? '',
    paths: (r.value<string[]>('paths') ?? []).map((p) => joinPaths(basePath, p)),
    access: buildAccess(r, parent, scope).access,
    customLogFields: logFields(r, parent.customLogFields),
    modifiers: buildModifiers(r),
    cors: buildCors(single(block.body.blocks, 'cors', scope), scope),
  };
}
