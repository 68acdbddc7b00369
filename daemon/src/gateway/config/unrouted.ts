import type { ApiConfig, ServerConfig } from './model.js';
import { joinPaths, parsePathPattern, patternKey } from '../router/path-pattern.js';

/** A protected api's paths that no route of its server takes: answered 404 only after the api's access controls. */
export interface UnroutedGuard {
  readonly api: ApiConfig;
  /** `<base_path>/**`. */
  readonly path: string;
}

/**
 * The unrouted paths of each api that has access controls (its own or inherited): as the
 * peer's catch-all endpoint, a request under the api's base path that no route takes is
 * refused by those controls before it learns that nothing is there (404), so the routes of a
 * protected api cannot be told from paths that do not exist without credentials. Left out,
 * as in the peer, for an api with an endpoint `/**` of its own (it takes every path) or whose
 * base path is that of a files or spa block (those serve the paths no endpoint takes), and
 * where another route already has the pattern `<base_path>/**`.
 */
export function unroutedGuards(server: ServerConfig): UnroutedGuard[] {
  const taken = new Set<string>();
  const key = (path: string): string => patternKey(parsePathPattern(path));
  for (const endpoint of [...server.endpoints, ...server.apis.flatMap((a) => a.endpoints)]) taken.add(key(endpoint.path));
  for (const files of server.files) taken.add(key(joinPaths(files.basePath, '/**')));
  for (const spa of server.spas) for (const path of spa.paths) taken.add(key(path));
  const base = (path: string): string => path.replace(/\/+$/, '') || '/';
  const staticBases = new Set([...server.files.map((f) => f.basePath), ...server.spas.map((s) => s.basePath)].map(base));
  const guards: UnroutedGuard[] = [];
  for (const api of server.apis) {
    if (api.access.effective.length === 0 || staticBases.has(base(api.basePath))) continue;
    const path = joinPaths(api.basePath, '/**');
    const pattern = key(path);
    if (taken.has(pattern)) continue;
    taken.add(pattern);
    guards.push({ api, path });
  }
  return guards;
}
