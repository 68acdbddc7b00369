/**
 * Routes as a lenient backend sees them. Routing is case-sensitive and takes `;` as part of a
 * segment, as the peer's; but many backends compare paths without regard to letter case
 * (Express by default, IIS, ASP.NET) or drop `;params` from each segment (Java servlet
 * containers: `/admin;x/y` is `/admin/y` to Tomcat and Jetty). Through a catch-all route,
 * `/ADMIN/users` or `/admin;x/users` would reach such a backend's `/admin/users` without the
 * access rules of the gateway's `/admin/**`. A request whose path, compared that way, takes
 * another route with rules the route it took lacks (an access control, a permission, or a
 * method restriction) is refused with 400 (docs/gateway.md, "Routing").
 */
import type { Dyn, Permission } from '../config/model.js';
import type { RequestInfo } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { patternKey, type PathPattern } from '../router/path-pattern.js';
import { PathRouter, routingPath } from '../router/path-router.js';
import { methodOverrides, STANDARD_METHODS } from './method-override.js';
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
}

const STATIC_METHODS = ['GET', 'HEAD'];

/** The loose form of a path or pattern segment: lower case, `;` and what follows it left out. */
function looseSegment(segment: string): string {
  const semicolon = segment.indexOf(';');
  return (semicolon === -1 ? segment : segment.slice(0, semicolon)).toLowerCase();
}

function targetGuard(target: RouteTarget): Guard {
  if (target.kind === 'endpoint') {
    const { endpoint } = target;
    const permission = endpoint.requiredPermission;
    const none = permission === null || (permission.kind === 'static' && permission.value === '');
    return { labels: new Set(endpoint.access.effective), permissions: new Set(none ? [] : [permission]), methods: new Set(endpoint.allowedMethods) };
  }
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
  return { router };
}

/** Paths with an upper-case letter, a `;` or a percent sign (which may encode either) are looked at; others are loose already. */
const MAY_DIFFER = /[A-Z;%]/;

/**
 * Throws a 400 when the path, compared as a lenient backend compares it, takes another route
 * than `taken` with rules `taken` lacks for this request's method (or a method it names by
 * override).
 */
export function checkLooseRoute(loose: LooseRoutes, path: string, request: RequestInfo, taken: RouteGroup): void {
  if (!MAY_DIFFER.test(path)) return;
  const compared = routingPath(path);
  const loosePath = compared.split('/').map(looseSegment).join('/');
  if (loosePath === compared) return;
  const match = loose.router.match(loosePath);
  if (match === null || match.value.groups.has(taken)) return;
  const other = match.value.guard;
  const own = groupGuard(taken);
  const methods = [request.method, ...methodOverrides(request).map((o) => o.method)];
  const stricter =
    [...other.labels].some((l) => !own.labels.has(l)) ||
    [...other.permissions].some((p) => !own.permissions.has(p)) ||
    methods.some((m) => !other.methods.has(m) && own.methods.has(m));
  if (!stricter) return;
  throw new GatewayError(
    'client_request',
    `the path ${JSON.stringify(path)} is ${JSON.stringify(loosePath)} to a backend that compares paths without regard to letter case or drops ";" parameters, and that takes the route ${match.value.source}, whose access rules the route this request took does not have; send the path as that route is written`,
  );
}
