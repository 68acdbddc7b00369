/**
 * What one applied configuration serves: per port the servers by host, per server a route
 * table (endpoints, files, spa paths) and the error templates of its blocks, plus the
 * configuration's BackendSet. Built aside on apply; requests capture the runtime they
 * arrive on and finish on it.
 */
import { routeWarnings } from '../config/route-warnings.js';
import { unroutedGuards } from '../config/unrouted.js';
import type { ApiConfig, CorsConfig, EndpointConfig, FilesConfig, GatewayConfig, ServerConfig, SpaConfig } from '../config/model.js';
import { type AccessSetOptions, createAccessControlSet } from '../access/access-set.js';
import type { AccessControlSet, BackendSet, EndpointContext, EndpointHandler, GatewayResponse } from '../contracts.js';
import { DEFAULT_HTML_TEMPLATE, DEFAULT_JSON_TEMPLATE, defaultTemplate, errorFileType, loadErrorFile, type ErrorTemplate } from '../errors/error-template.js';
import { joinPaths, parsePathPattern, patternKey, type PathPattern } from '../router/path-pattern.js';
import { PathRouter } from '../router/path-router.js';
import { effectiveCors } from './cors.js';
import { buildLooseRoutes, type LooseRoutes } from './loose-routes.js';

export type RouteTarget =
  | {
      readonly kind: 'endpoint';
      readonly api: ApiConfig | null;
      readonly endpoint: EndpointConfig;
      readonly cors: CorsConfig | null;
      /** The endpoint compiled by the server's endpoint handler when the configuration was applied, or null. */
      readonly handle: RouteHandler | null;
    }
  /** `route`: as the Config view of the consoles names it (control/routes-view.ts), for denials. */
  | { readonly kind: 'files'; readonly files: FilesConfig; readonly route: string; readonly cors: CorsConfig | null }
  | { readonly kind: 'spa'; readonly spa: SpaConfig; readonly route: string; readonly cors: CorsConfig | null }
  /** A protected api's paths no route takes: its access controls, then 404 (config/unrouted.ts). */
  | { readonly kind: 'unrouted'; readonly api: ApiConfig; readonly route: string; readonly cors: CorsConfig | null };

type RouteHandler = (ctx: EndpointContext) => Promise<GatewayResponse>;

/** The order in which a group's targets are tried. */
const TARGET_RANK = { files: 0, endpoint: 1, spa: 2, unrouted: 3 } as const;

/** Targets whose patterns route the same paths (e.g. files at `/` and a spa's `/**`): an existing file wins, then an endpoint, then the spa; kept in that order. */
export interface RouteGroup {
  readonly targets: RouteTarget[];
}

export interface ApiScope {
  readonly api: ApiConfig;
  readonly template: ErrorTemplate;
  readonly cors: CorsConfig | null;
}

export interface ServerRuntime {
  readonly server: ServerConfig;
  readonly router: PathRouter<RouteGroup>;
  readonly template: ErrorTemplate;
  /** Longest base path first. */
  readonly apis: readonly ApiScope[];
  readonly filesTemplates: ReadonlyMap<FilesConfig, ErrorTemplate>;
  /** Longest base path first. */
  readonly files: readonly FilesConfig[];
  readonly cors: CorsConfig | null;
  /** The routes as a lenient backend compares paths, when any route has rules to get around (http/loose-routes.ts). */
  readonly loose: LooseRoutes | null;
}

export interface PortRuntime {
  readonly port: number;
  /** Named hosts (lower case, no port). */
  readonly byHost: ReadonlyMap<string, ServerRuntime>;
  /** The `*` server of the port. */
  readonly fallback: ServerRuntime | null;
}

export interface Runtime {
  readonly config: GatewayConfig;
  readonly backends: BackendSet;
  readonly access: AccessControlSet;
  readonly ports: ReadonlyMap<number, PortRuntime>;
  /** Warnings for the log: error_file templates that could not be used (their type's default serves instead), allowed methods no request can have, routes no request can pass. */
  readonly problems: readonly string[];
}


/** `endpointHandler` compiles each endpoint route into the handler it needs (when it can). */
export function buildRuntime(config: GatewayConfig, backends: BackendSet, access: AccessSetOptions = {}, endpointHandler?: EndpointHandler): Runtime {
  const problems: string[] = [];
  const templates = new Map<string, ErrorTemplate>();
  const templateFor = (file: string | null, fallback: ErrorTemplate): ErrorTemplate => {
    if (file === null) return fallback;
    let template = templates.get(file);
    if (!template) {
      const loaded = loadErrorFile(file);
      if (loaded.problem !== null) problems.push(`error_file ${file}: ${loaded.problem}; the default ${errorFileType(file)} template is used instead`);
      template = loaded.template ?? defaultTemplate(errorFileType(file));
      templates.set(file, template);
    }
    return template;
  };

  problems.push(...routeWarnings(config));
  const ports = new Map<number, { byHost: Map<string, ServerRuntime>; fallback: ServerRuntime | null }>();
  for (const server of config.servers) {
    const compile = (api: ApiConfig | null, endpoint: EndpointConfig): RouteHandler | null => endpointHandler?.compile?.({ config, server, api, endpoint }) ?? null;
    const runtime = buildServer(server, templateFor, compile);
    for (const { host, port } of server.hosts) {
      let entry = ports.get(port);
      if (!entry) ports.set(port, (entry = { byHost: new Map(), fallback: null }));
      if (host === '*') entry.fallback = runtime;
      else entry.byHost.set(host, runtime);
    }
  }
  const frozen = new Map<number, PortRuntime>();
  for (const [port, entry] of ports) frozen.set(port, { port, byHost: entry.byHost, fallback: entry.fallback });
  return { config, backends, access: createAccessControlSet(config, backends, access), ports: frozen, problems };
}

function buildServer(server: ServerConfig, templateFor: (file: string | null, fallback: ErrorTemplate) => ErrorTemplate, compile: (api: ApiConfig | null, endpoint: EndpointConfig) => RouteHandler | null): ServerRuntime {
  const groups = new Map<string, RouteGroup>();
  const router = new PathRouter<RouteGroup>();
  const routes: Array<readonly [PathPattern, RouteGroup]> = [];
  const add = (path: string, target: RouteTarget): void => {
    const pattern = parsePathPattern(path);
    const key = patternKey(pattern);
    const group = groups.get(key);
    if (group) {
      group.targets.push(target);
      group.targets.sort((a, b) => TARGET_RANK[a.kind] - TARGET_RANK[b.kind]);
      return;
    }
    const created: RouteGroup = { targets: [target] };
    groups.set(key, created);
    router.add(pattern, created);
    routes.push([pattern, created]);
  };
  for (const endpoint of server.endpoints) add(endpoint.path, { kind: 'endpoint', api: null, endpoint, cors: effectiveCors(server, null), handle: compile(null, endpoint) });
  for (const api of server.apis) {
    const cors = effectiveCors(server, api.cors);
    for (const endpoint of api.endpoints) add(endpoint.path, { kind: 'endpoint', api, endpoint, cors, handle: compile(api, endpoint) });
  }
  for (const files of server.files) {
    const route = joinPaths(files.basePath, '/**');
    add(route, { kind: 'files', files, route, cors: effectiveCors(server, files.cors) });
  }
  for (const spa of server.spas) {
    const route = spa.paths.join(', ');
    for (const path of spa.paths) add(path, { kind: 'spa', spa, route, cors: effectiveCors(server, spa.cors) });
  }
  for (const { api, path } of unroutedGuards(server)) add(path, { kind: 'unrouted', api, route: path, cors: effectiveCors(server, api.cors) });

  const serverTemplate = templateFor(server.errorFile, DEFAULT_HTML_TEMPLATE);
  const apis = server.apis
    .map((api) => ({ api, template: templateFor(api.errorFile, DEFAULT_JSON_TEMPLATE), cors: effectiveCors(server, api.cors) }))
    .sort((a, b) => b.api.basePath.length - a.api.basePath.length);
  const filesTemplates = new Map(server.files.map((f) => [f, templateFor(f.errorFile, serverTemplate)] as const));
  const files = [...server.files].sort((a, b) => b.basePath.length - a.basePath.length);
  return { server, router, template: serverTemplate, apis, filesTemplates, files, cors: effectiveCors(server, null), loose: buildLooseRoutes(routes) };
}

/** True when `path` is `base` or below it. */
export function underBasePath(path: string, base: string): boolean {
  if (base === '/' || path === base) return true;
  const prefix = base.endsWith('/') ? base : `${base}/`;
  return path.startsWith(prefix) || path === base.replace(/\/$/, '');
}
