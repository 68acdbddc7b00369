import { backendsView } from './backends-view.js';
import { clustersView } from './clusters-view.js';
import { configView } from './config-view.js';
import { deliveriesView } from './deliveries-view.js';
import { eventsView } from './events-view.js';
import { infosessionsView } from './infosessions-view.js';
import { jobsView } from './jobs-view.js';
import { keysView } from './keys-view.js';
import { statusView } from './status-view.js';
import type { ViewDefinition } from './view.js';

/** Every view, in tab order. A new view is one file plus one entry here. */
export const VIEWS: readonly ViewDefinition[] = [statusView, eventsView, configView, backendsView, clustersView, infosessionsView, keysView, jobsView, deliveriesView];

export type ViewLookup = { kind: 'found'; view: ViewDefinition } | { kind: 'ambiguous'; views: ViewDefinition[] } | { kind: 'unknown' };

/** Finds a view by id, alias, or a prefix that names only one view. */
export function findView(views: readonly ViewDefinition[], name: string): ViewLookup {
  const wanted = name.trim().toLowerCase();
  const exact = views.find((v) => v.id === wanted || v.aliases.includes(wanted));
  if (exact) return { kind: 'found', view: exact };
  const byPrefix = wanted ? views.filter((v) => v.id.startsWith(wanted)) : [];
  if (byPrefix.length === 1 && byPrefix[0]) return { kind: 'found', view: byPrefix[0] };
  if (byPrefix.length > 1) return { kind: 'ambiguous', views: byPrefix };
  return { kind: 'unknown' };
}
