/**
 * Routes as a lenient backend sees them. Routing is case-sensitive and takes `;` as part of a
 * segment, as the peer's; but many backends compare paths without regard to letter case
 * (Express by default, IIS, ASP.NET) or drop `;params` from each segment (Java servlet
 * containers: `/admin;x/y` is `/admin/y` to Tomcat and Jetty), drop trailing dots and spaces
 * from each name (IIS and other servers on Windows) or read full-width letters as ASCII (IIS's
 * best-fit mapping, NFKC). Through a catch-all route, `/ADMIN/users`, `/admin;x/users`,
 * `/admin./users` or `/%EF%BD%81dmin/users` would reach such a backend's `/admin/users`
 * without the access rules of the gateway's `/admin/**`. A request whose path, compared that
 * way, takes another route with rules the route it took lacks (an access control, a
 * permission, or a method restriction) is refused with 400 (docs/gateway.md, "Routing"); so is
 * one that names such a path in `X-Original-URL` or `X-Rewrite-URL`.
 */
import type { Dyn, Permission } from '../config/model.js';
import type { RequestInfo } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { patternKey, type PathPattern } from '../router/path-pattern.js';
import { PathRouter, routingPath } from '../router/path-router.js';
import { methodOverrides, STANDARD_METHODS } from './method-override.js';
import { NON_ASCII, segmentProblem } from './request-path.js';
import type { RouteGroup, RouteTarget } from './runtime.js';

/** What protects a route: the access controls, permissions and methods of its targets. */
interface Guard {
  readonly labels: ReadonlySet<string>;
  readonly permissions: ReadonlySet<Dyn<Permission>>;
  readonly methods: ReadonlySet<string>;
}

/** One loose pattern: the routes it stands for (two patterns may differ only in case), their rules merged. */
interface LooseRoute {
  readonly source: string;
  readonly groups: Set<RouteGroup>;
  guard: Guard;
}

export interface LooseRoutes {
  readonly router: PathRouter<LooseRoute>;
  /** Each route's pattern as written, for messages. */
  readonly sources: ReadonlyMap<RouteGroup, string>;
}

const STATIC_METHODS = ['GET', 'HEAD'];

/** What Windows drops from the end of each name in a path (IIS serves `/admin./x` and `/admin%20/x` as `/admin/x`). */
const TRAILING_DOTS_AND_SPACES = /[. ]+$/;

/**
 * The loose form of a path or pattern segment: full-width and other compatibility characters
 * read as the ASCII they stand for (NFKC, as IIS's best-fit mapping: `ａｄｍｉｎ` is `admin`),
 * `;` and what follows it left out, trailing dots and spaces left out (unless that leaves
 * nothing), lower case.
 */
function looseSegment(segment: string): string {
  const folded = NON_ASCII.test(segment) ? segment.normalize('NFKC') : segment;
  const semicolon = folded.indexOf(';');
  const name = semicolon === -1 ? folded : folded.slice(0, semicolon);
  const trimmed = name.replace(TRAILING_DOTS_AND_SPACES, '');
  return (trimmed === '' ? name : trimmed).toLowerCase();
}

function targetGuard(target: RouteTarget): Guard {
  if (target.kind === 'endpoint') {
    const { endpoint } = target;
    const permission = endpoint.requiredPermission;
    const none = permission === null || (permission.kind === 'static' && permission.value === '');
    return { labels: new Set(endpoint.access.effective), permissions: new Set(none ? [] : [permission]), methods: new Set(endpoint.allowedMethods) };
  }
  // A protected api's unrouted paths: its controls, any method (each gets its 401 or 404).
  if (target.kind === 'unrouted') return { labels: new Set(target.api.access.effective), permissions: new Set(), methods: new Set(STANDARD_METHODS) };
  const access = target.kind === 'files' ? target.files.access : target.spa.access;
  return { labels: new Set(access.effective), permissions: new Set(), methods: new Set(STATIC_METHODS) };
}

/** Several routes in one: every rule of each (the labels and permissions of all), any method one of them takes. */
function merge(a: Guard, b: Guard): Guard {
  return { labels: new Set([...a.labels, ...b.labels]), permissions: new Set([...a.permissions, ...b.permissions]), methods: new Set([...a.methods, ...b.methods]) };
}

const groupGuards = new WeakMap<RouteGroup, Guard>();
function groupGuard(group: RouteGroup): Guard {
  let guard = groupGuards.get(group);
  if (!guard) {
    guard = group.targets.map(targetGuard).reduce(merge);
    groupGuards.set(group, guard);
  }
  return guard;
}

function guarded(guard: Guard): boolean {
  return guard.labels.size > 0 || guard.permissions.size > 0;
}

/**
 * The loose routes of a server, or null when none of its routes has rules a lenient backend
 * could be reached around (an access control, a permission, or methods short of the standard
 * seven): then no request needs the check.
 */
export function buildLooseRoutes(routes: ReadonlyArray<readonly [PathPattern, RouteGroup]>): LooseRoutes | null {
  const restricted = routes.some(([, group]) => {
    const guard = groupGuard(group);
    return guarded(guard) || STANDARD_METHODS.some((m) => !guard.methods.has(m));
  });
  if (!restricted) return null;
  const byKey = new Map<string, { pattern: PathPattern; route: LooseRoute }>();
  for (const [pattern, group] of routes) {
    const loose: PathPattern = { source: pattern.source, wildcard: pattern.wildcard, segments: pattern.segments.map((s) => (s.kind === 'static' ? { kind: 'static', text: looseSegment(s.text) } : s)) };
    const key = patternKey(loose);
    const existing = byKey.get(key);
    if (existing) {
      existing.route.groups.add(group);
      existing.route.guard = merge(existing.route.guard, groupGuard(group));
    } else byKey.set(key, { pattern: loose, route: { source: pattern.source, groups: new Set([group]), guard: groupGuard(group) } });
  }
  const router = new PathRouter<LooseRoute>();
  for (const { pattern, route } of byKey.values()) router.add(pattern, route);
  return { router, sources: new Map(routes.map(([pattern, group]) => [group, pattern.source])) };
}

/**
 * Paths with an upper-case letter, a `;`, a segment ending in a dot, or a percent sign (which may
 * encode any of these, a space or a full-width letter) are looked at; others are loose already.
 */
const MAY_DIFFER = /[A-Z;%]|\.(?:\/|$)/;

/**
 * Headers some backends take the path from instead of the request line (IIS's URL Rewrite
 * module, Zend, older Symfony): a request for an open route naming a guarded path in one of
 * them would be served that path.
 */
export const PATH_HEADERS: readonly string[] = ['x-original-url', 'x-rewrite-url'];

/** The ways of a lenient backend, for messages. */
const LENIENT = 'letter case, ";" parameters, trailing dots and spaces, full-width characters';

/** The denial type of such a refusal (Events: "access denied: path_escape by the path check"). */
export const PATH_ESCAPE = 'path_escape';

/**
 * The 400 to answer when the request could reach, at a lenient backend, a route with rules the
 * route it took (`taken`) lacks for its method (or a method it names by override): its path
 * compared without regard to case or `;params`, or a path named in `X-Original-URL` /
 * `X-Rewrite-URL`. Null when it could not.
 */
export function routeEscape(loose: LooseRoutes, router: PathRouter<RouteGroup>, path: string, request: RequestInfo, taken: RouteGroup): GatewayError | null {
  if (MAY_DIFFER.test(path)) {
    const other = stricterLooseRoute(loose, path, request, taken);
    if (other !== null) {
      return new GatewayError(
        'client_request',
        `the path ${JSON.stringify(path)} is ${JSON.stringify(other.path)} to a backend that compares paths leniently (${LENIENT}), and that takes the route ${other.source}, whose access rules the route this request took does not have; send the path as that route is written`,
      );
    }
  }
  const headers = request.headers;
  for (const name of PATH_HEADERS) {
    const value = headers[name];
    if (value === undefined) continue;
    for (const named of typeof value === 'string' ? [value] : value) {
      const refused = namedPathEscape(loose, router, name, named, request, taken);
      if (refused !== null) return refused;
    }
  }
  return null;
}

/**
 * The route a path takes compared the lenient way, when that differs from the path itself and is
 * not `taken` (nor a route written like it in other case), and has rules `taken` lacks for this request.
 */
function stricterLooseRoute(loose: LooseRoutes, path: string, request: RequestInfo, taken: RouteGroup): { path: string; source: string } | null {
  const compared = routingPath(path);
  const loosePath = compared.split('/').map(looseSegment).join('/');
  if (loosePath === compared) return null;
  const match = loose.router.match(loosePath);
  if (match === null || match.value.groups.has(taken) || !stricter(match.value.guard, taken, request)) return null;
  return { path: loosePath, source: match.value.source };
}

/** A path named by a header: refused when it, as sent or compared the lenient way, takes a route with rules `taken` lacks. */
function namedPathEscape(loose: LooseRoutes, router: PathRouter<RouteGroup>, header: string, value: string, request: RequestInfo, taken: RouteGroup): GatewayError | null {
  const path = namedPath(value);
  const refuse = (why: string): GatewayError => new GatewayError('client_request', `the ${header} header ${why}; some backends serve the path it names instead of the request's: leave it out, or send the request to that path`);
  if (path === null) return refuse(`names no path (${JSON.stringify(value.slice(0, 60))})`);
  const problem = segmentProblem(path);
  if (problem !== null) return refuse(`names a path with ${problem}`);
  const exact = router.match(path);
  if (exact !== null && exact.value !== taken && stricter(groupGuard(exact.value), taken, request)) {
    return refuse(`names ${JSON.stringify(path)}, which takes the route ${loose.sources.get(exact.value) ?? '?'}, whose access rules the route this request took does not have`);
  }
  const other = stricterLooseRoute(loose, path, request, taken);
  if (other !== null) {
    return refuse(`names ${JSON.stringify(path)}, which is ${JSON.stringify(other.path)} to a backend that compares paths leniently (${LENIENT}) and takes the route ${other.source}, whose access rules the route this request took does not have`);
  }
  return null;
}

/** The path of a header's value: an origin-form path, or an absolute URL's; the query left out. Null for anything else. */
function namedPath(value: string): string | null {
  const trimmed = value.trim();
  if (trimmed.startsWith('/') && !trimmed.startsWith('//')) {
    const end = trimmed.search(/[?#]/);
    return end === -1 ? trimmed : trimmed.slice(0, end);
  }
  if (!/^https?:\/\//i.test(trimmed)) return null;
  try {
    return new URL(trimmed).pathname;
  } catch {
    return null;
  }
}

/** True when `other` has a rule `taken` lacks for this request: an access control, a permission, or a refusal of one of its methods that `taken` allows. */
function stricter(other: Guard, taken: RouteGroup, request: RequestInfo): boolean {
  const own = groupGuard(taken);
  if ([...other.labels].some((l) => !own.labels.has(l)) || [...other.permissions].some((p) => !own.permissions.has(p))) return true;
  const methods = [request.method, ...methodOverrides(request).map((o) => o.method)];
  return methods.some((m) => !other.methods.has(m) && own.methods.has(m));
}
