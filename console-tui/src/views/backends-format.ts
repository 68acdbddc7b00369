import type { BackendHealthChangeView, BackendState, BackendUpdate, BackendView } from '@portico/daemon/control';
import { backendLabel as sharedBackendLabel, type Label } from '@portico/daemon/display';

/** Green healthy, yellow degraded, red unhealthy, grey unknown; a backend without beta_health is `unchecked`. */
export function backendLabel(b: Pick<BackendView, 'health'>): Label {
  return sharedBackendLabel(b.health);
}

export function stateWord(state: BackendState): string {
  return sharedBackendLabel({ state, checked: true }).word;
}

export { agoText } from '@portico/daemon/display';

export function latencyText(ms: number | null): string {
  return ms === null ? '-' : `${Math.round(ms)} ms`;
}

/** The list with one live update applied: the backend's health replaced, the rest as they were. */
export function applyUpdate(list: readonly BackendView[], update: BackendUpdate): BackendView[] {
  return list.map((b) => (b.name === update.backend ? { ...b, health: update.health } : b));
}

/** The timeline with a live change on top (newest first), without repeating one already there. */
export function addChange(timeline: readonly BackendHealthChangeView[], change: BackendHealthChangeView, limit = 200): BackendHealthChangeView[] {
  if (timeline.some((c) => c.backend === change.backend && c.at === change.at && c.to === change.to)) return [...timeline];
  return [change, ...timeline].slice(0, limit);
}

/**
 * A fresh read merged with what is on screen: a live update that arrived while the read was
 * under way is newer than the read, so per backend the later check wins, and the timelines join.
 */
export function mergeRead(
  shown: { backends: readonly BackendView[]; timeline: readonly BackendHealthChangeView[] } | null,
  read: { backends: BackendView[]; timeline: BackendHealthChangeView[] },
): { backends: BackendView[]; timeline: BackendHealthChangeView[] } {
  if (!shown) return read;
  const seen = new Map(shown.backends.map((b) => [b.name, b.health]));
  const backends = read.backends.map((b) => {
    const live = seen.get(b.name);
    return live && (live.lastCheckAt ?? '') > (b.health.lastCheckAt ?? '') ? { ...b, health: live } : b;
  });
  let timeline = read.timeline;
  for (const change of [...shown.timeline].reverse()) timeline = addChange(timeline, change);
  timeline.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return { backends, timeline };
}
