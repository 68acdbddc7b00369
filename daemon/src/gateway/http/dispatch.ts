/**
 * From a request on a port to its response: the server by host, the route by most-specific
 * path match, CORS preflights, allowed methods, then files, spa or the endpoint handler.
 * Errors come back as GatewayErrors with the template of the block the request was in.
 */
import type { IncomingMessage } from 'node:http';
import type { ApiConfig, CorsConfig, EndpointConfig, FilesConfig, Modifiers, ServerConfig, SpaConfig } from '../config/model.js';
import type { GatewayConfig } from '../config/model.js';
import type { AccessControlSet, AccessLogFields, BackendSet, EndpointContext, EndpointHandler, GatewayLogSink, GatewayResponse, RequestInfo } from '../contracts.js';
import { DEFAULT_HTML_TEMPLATE, type ErrorTemplate } from '../errors/error-template.js';
import { addPrivateCaching } from '../access/private-caching.js';
import { GatewayError } from '../errors/error-types.js';
import { isPreflight } from './cors.js';
import { checkOverridesAllowed, methodNotAllowed, methodOverrides, refusedAsOverride } from './method-override.js';
import { PATH_ESCAPE, routeEscape } from './loose-routes.js';
import type { RequestLifetime } from './request-lifetime.js';
import { hostName } from './forwarded-url.js';
import { underBasePath, type RouteTarget, type Runtime, type ServerRuntime } from './runtime.js';
import { routingPath } from '../router/path-router.js';
import { bootstrapResponse, serveFile, STATIC_METHODS } from './static-files.js';

/** Where the request landed: what the log line and the error rendering need. */
export interface Placement {
  server: ServerConfig | null;
  api: ApiConfig | null;
  endpoint: EndpointConfig | null;
  files: FilesConfig | null;
  spa: SpaConfig | null;
  /** The route taken, as the Config view of the consoles names it (control/routes-view.ts); null before one is. */
  route: string | null;
  /**
   * The route's pattern as access lines and metrics name it (bounded, never the request's path):
   * an endpoint's label as written, `/**` for the unrouted paths of a protected api (the
   * catch-all endpoint such an api would have); null for files, spa and no route.
   */
  pattern: string | null;
  template: ErrorTemplate;
  cors: CorsConfig | null;
  allowedMethods: readonly string[];
  /** Response header modifiers the front applies itself (server, files, spa; not endpoints). */
  modifiers: readonly Modifiers[];
  customLogFields: ServerConfig['customLogFields'];
  pathParams: Readonly<Record<string, string>>;
  wildcard: string | null;
}

export interface DispatchInput {
  readonly runtime: Runtime;
  readonly port: number;
  /** Host (or X-Forwarded-Host with xfh) of the request. */
  readonly host: string;
  /** Path as received, without the query. */
  readonly path: string;
  readonly search: string;
  /** Its path parameters and wildcard are set here once the route is known. */
  readonly request: RequestInfo;
  readonly incoming: IncomingMessage;
  readonly endpointHandler: EndpointHandler;
  /** True when `endpointHandler` is the one the runtime's routes were compiled with (their compiled handlers serve). */
  readonly compiled: boolean;
  readonly log: AccessLogFields;
  readonly logSink: GatewayLogSink;
  readonly lifetime: RequestLifetime;
}

/** Placement's lists are replaced, never changed: one empty list of each kind serves every request. */
const NO_METHODS: readonly string[] = Object.freeze([]);
const NO_MODIFIERS: readonly Modifiers[] = Object.freeze([]);
const NO_LOG_FIELDS: ServerConfig['customLogFields'] = Object.freeze([]);
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
/** The pattern an api's unrouted paths are logged under: its base path's catch-all, relative like an endpoint's label. */
const UNROUTED_PATTERN = '/**';

export function emptyPlacement(): Placement {
  return { server: null, api: null, endpoint: null, files: null, spa: null, route: null, pattern: null, template: DEFAULT_HTML_TEMPLATE, cors: null, allowedMethods: NO_METHODS, modifiers: NO_MODIFIERS, customLogFields: NO_LOG_FIELDS, pathParams: NO_PARAMS, wildcard: null };
}

export function selectServer(runtime: Runtime, port: number, host: string): ServerRuntime | null {
  const entry = runtime.ports.get(port);
  if (!entry) return null;
  return entry.byHost.get(hostName(host)) ?? entry.fallback;
}

/**
 * Fills `placement` as soon as each part is known, so an error thrown later is still rendered and
 * logged in place. Not an async function: a route whose first target is an endpoint gets its
 * handler's promise as it is (an async function would wrap it in one more, resolved ticks later);
 * a request that finds no server or route throws at once.
 */
export function dispatch(input: DispatchInput, placement: Placement): Promise<GatewayResponse> {
  const srv = selectServer(input.runtime, input.port, input.host);
  if (!srv) throw new GatewayError('route_not_found', `no server for host "${input.host}" on port ${input.port}`);
  placeInServer(srv, input.path, placement);
  const match = srv.router.match(input.path);
  if (!match) throw new GatewayError('route_not_found', `no route for ${input.path}`);
  if (srv.loose !== null) {
    const escape = routeEscape(srv.loose, srv.router, input.path, input.request, match.value);
    if (escape !== null) {
      // Named by the route taken, in its block's error format; told to the consoles as a denial.
      const first = match.value.targets[0];
      if (first !== undefined) placeTarget(srv, first, placement);
      input.log.denial = { type: PATH_ESCAPE, label: null };
      throw escape;
    }
  }
  const request = input.request as { -readonly [K in keyof RequestInfo]: RequestInfo[K] };
  request.pathParams = match.params;
  request.wildcard = match.rest;
  placement.pathParams = match.params;
  placement.wildcard = match.rest;
  const targets = match.value.targets;
  const first = targets[0];
  if (first !== undefined && first.kind === 'endpoint') return serveEndpoint(input, srv, first, request, placement);
  return serveTargets(input, srv, targets, match.rest, request, placement);
}

/** The targets of a route in order: files blocks until one has the file, then a spa or an endpoint. */
async function serveTargets(input: DispatchInput, srv: ServerRuntime, targets: readonly RouteTarget[], rest: string | null, request: RequestInfo, placement: Placement): Promise<GatewayResponse> {
  const method = request.method;
  for (const target of targets) {
    if (target.kind === 'files') {
      placeTarget(srv, target, placement);
      const preflight = answerPreflight(target.cors, method, request.headers);
      if (preflight) return preflight;
      // The methods once the access controls passed, as the peer: a client without credentials learns nothing of the route.
      const refused = await guard(input, srv, target.files, target.files.basePath, request);
      if (refused) return refused;
      if (!STATIC_METHODS.includes(method)) throw methodNotAllowed(method, STATIC_METHODS);
      const response = await serveFile({ documentRoot: target.files.documentRoot, rest: rest ?? '', path: input.path, search: input.search, method, headers: request.headers });
      if (response) {
        input.log.handler = 'files';
        return privateCaching(input, target.files.access.effective, response);
      }
      continue;
    }
    if (target.kind === 'spa') {
      placeTarget(srv, target, placement);
      const preflight = answerPreflight(target.cors, method, request.headers);
      if (preflight) return preflight;
      // The methods once the access controls passed, as the peer: a client without credentials learns nothing of the route.
      const refused = await guard(input, srv, target.spa, target.spa.basePath, request);
      if (refused) return refused;
      if (!STATIC_METHODS.includes(method)) throw methodNotAllowed(method, STATIC_METHODS);
      input.log.handler = 'spa';
      return privateCaching(input, target.spa.access.effective, await bootstrapResponse(target.spa.bootstrapFile, method, request.headers));
    }
    if (target.kind === 'unrouted') {
      placeTarget(srv, target, placement);
      const preflight = answerPreflight(target.cors, method, request.headers);
      if (preflight) return preflight;
      const refused = await guard(input, srv, target.api, target.route, request, target.api.requiredPermission);
      if (refused) return refused;
      throw new GatewayError('route_not_found', `no route for ${input.path}`);
    }
    return serveEndpoint(input, srv, target, request, placement);
  }
  // Only files routes matched, and none had the file: a 404 in the block the path is under.
  throw new GatewayError('route_not_found', `no file for ${input.path}`);
}

type EndpointTarget = Extract<RouteTarget, { kind: 'endpoint' }>;

function serveEndpoint(input: DispatchInput, srv: ServerRuntime, target: EndpointTarget, request: RequestInfo, placement: Placement): Promise<GatewayResponse> {
  placeTarget(srv, target, placement);
  const { endpoint, api } = target;
  const method = request.method;
  const preflight = answerPreflight(target.cors, method, request.headers);
  if (preflight) return Promise.resolve(preflight);
  // A route with access controls checks the methods once they passed (its handler runs the check).
  const check = methodCheck(input.log, request, endpoint.allowedMethods);
  const guarded = endpoint.access.effective.length > 0;
  if (check !== null && !guarded) check();
  input.log.handler ??= 'endpoint';
  const ctx = new RouteContext(input, srv.server, api, endpoint, request, guarded ? check : null);
  return input.compiled && target.handle !== null ? target.handle(ctx) : input.endpointHandler.handle(ctx);
}

/**
 * The check of a request's method and the methods it names by override against the endpoint's
 * `allowed_methods` (405); null when there is nothing to check.
 */
function methodCheck(log: AccessLogFields, request: RequestInfo, allowed: readonly string[]): (() => void) | null {
  const method = request.method;
  const refused = !allowed.includes(method);
  const overrides = methodOverrides(request);
  if (!refused && overrides.length === 0) return null;
  return () => {
    if (refused) throw methodNotAllowed(method, allowed);
    refusedAsOverride(log, () => checkOverridesAllowed(overrides, allowed));
  };
}

/**
 * The context of a request's route: its AbortSignal is made only when read (access controls,
 * body reads), by a getter of the class. Not an object literal with its own getter: each would
 * get a hidden class of its own, which kept the request's objects alive through young-generation
 * collections (see ClientBlockRequest in endpoint/backend-request.ts). A handler that copies it
 * with a spread names `signal` itself.
 */
class RouteContext implements EndpointContext {
  readonly config: GatewayConfig;
  readonly access: AccessControlSet;
  readonly incoming: IncomingMessage;
  readonly backends: BackendSet;
  readonly log: AccessLogFields;
  readonly logSink: GatewayLogSink;
  readonly cancel: RequestLifetime;

  constructor(
    input: DispatchInput,
    readonly server: ServerConfig,
    readonly api: ApiConfig | null,
    readonly endpoint: EndpointConfig,
    readonly request: RequestInfo,
    readonly methodCheck: (() => void) | null,
  ) {
    this.config = input.runtime.config;
    this.access = input.runtime.access;
    this.incoming = input.incoming;
    this.backends = input.runtime.backends;
    this.log = input.log;
    this.logSink = input.logSink;
    this.cancel = input.lifetime;
  }

  get signal(): AbortSignal {
    return this.cancel.signal;
  }
}

/**
 * A files, spa or api block's access controls, run by the endpoint handler (it runs their error
 * handlers); `path` names the route in logs and denials; an api's permission is checked after them.
 */
function guard(input: DispatchInput, srv: ServerRuntime, block: FilesConfig | SpaConfig | ApiConfig, path: string, request: RequestInfo, requiredPermission: ApiConfig['requiredPermission'] = null): Promise<GatewayResponse | null> {
  if (block.access.effective.length === 0) return Promise.resolve(null);
  return input.endpointHandler.guard({
    config: input.runtime.config,
    access: input.runtime.access,
    server: srv.server,
    path,
    blockAccess: block.access,
    requiredPermission,
    customLogFields: block.customLogFields,
    request,
    incoming: input.incoming,
    backends: input.runtime.backends,
    log: input.log,
    logSink: input.logSink,
    signal: input.lifetime.signal,
  });
}

function privateCaching(input: DispatchInput, labels: readonly string[], response: GatewayResponse): GatewayResponse {
  if (labels.length > 0 && input.runtime.access.privateCaching(labels)) addPrivateCaching(response.headers);
  return response;
}

/** Placement by path alone: the api (JSON errors) or files block the path is under, else the server. */
function placeInServer(srv: ServerRuntime, path: string, placement: Placement): void {
  placement.server = srv.server;
  placement.template = srv.template;
  placement.cors = srv.cors;
  placement.modifiers = [srv.server.modifiers];
  placement.customLogFields = srv.server.customLogFields;
  // The api or files block a path is under, as routing sees it (`/%61pi/x` is under `/api`).
  const routed = routingPath(path);
  const scope = srv.apis.find((a) => underBasePath(routed, a.api.basePath));
  if (scope) {
    placement.api = scope.api;
    placement.template = scope.template;
    placement.cors = scope.cors;
    placement.customLogFields = scope.api.customLogFields;
    return;
  }
  const files = srv.files.find((f) => underBasePath(routed, f.basePath));
  if (files) placement.template = srv.filesTemplates.get(files) ?? srv.template;
}

function placeTarget(srv: ServerRuntime, target: RouteTarget, placement: Placement): void {
  placement.cors = target.cors;
  placement.files = null;
  placement.spa = null;
  placement.endpoint = null;
  placement.pattern = null;
  if (target.kind === 'files') {
    placement.files = target.files;
    placement.route = target.route;
    placement.allowedMethods = STATIC_METHODS;
    placement.modifiers = [srv.server.modifiers, target.files.modifiers];
    placement.customLogFields = target.files.customLogFields;
    // Inside an api's base path errors stay JSON; otherwise the files block's template.
    if (!placement.api) placement.template = srv.filesTemplates.get(target.files) ?? srv.template;
  } else if (target.kind === 'unrouted') {
    // Errors in the format of the api the path is under (placeInServer placed it).
    placement.route = target.route;
    placement.pattern = UNROUTED_PATTERN;
    placement.allowedMethods = target.api.allowedMethods;
  } else if (target.kind === 'spa') {
    placement.spa = target.spa;
    placement.route = target.route;
    placement.allowedMethods = STATIC_METHODS;
    placement.modifiers = [srv.server.modifiers, target.spa.modifiers];
    placement.customLogFields = target.spa.customLogFields;
  } else {
    placement.endpoint = target.endpoint;
    placement.route = target.endpoint.path;
    placement.pattern = target.endpoint.pattern;
    placement.api = target.api;
    placement.allowedMethods = target.endpoint.allowedMethods;
    // The endpoint handler applies server, api and endpoint modifiers to its responses.
    placement.modifiers = NO_MODIFIERS;
    placement.customLogFields = target.endpoint.customLogFields;
    placement.template = target.api ? (srv.apis.find((a) => a.api === target.api)?.template ?? placement.template) : srv.template;
  }
}

/** The gateway answers a preflight itself when CORS applies; the CORS headers are added with every response's. */
function answerPreflight(cors: CorsConfig | null, method: string, headers: RequestInfo['headers']): GatewayResponse | null {
  if (!cors || !isPreflight(method, headers)) return null;
  return { status: 204, headers: {}, body: null };
}

