import type { ViewDefinition } from './view-definition';

/** Navigation order; two views on one path is a programming error worth failing loudly for. */
export function sortViews<V extends Pick<ViewDefinition, 'path' | 'title' | 'order'>>(list: readonly V[]): V[] {
  const byPath = new Map<string, V>();
  for (const view of list) {
    if (byPath.has(view.path)) throw new Error(`Two dashboard views claim the path ${view.path}; give each view its own path.`);
    byPath.set(view.path, view);
  }
  return [...byPath.values()].sort((a, b) => a.order - b.order || a.title.localeCompare(b.title));
}
