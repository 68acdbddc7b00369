/** What the router needs from a view; see views/view-definition.ts for the full shape. */
export interface Routable {
  path: string;
}

/**
 * The view for a location path: `/` is the first view, a view owns its path and everything
 * under it (`/jobs/42` belongs to `/jobs`), anything else is not found (null).
 */
export function resolveView<V extends Routable>(pathname: string, views: readonly V[]): V | null {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/') return views[0] ?? null;
  return views.find((v) => path === v.path || path.startsWith(`${v.path}/`)) ?? null;
}
