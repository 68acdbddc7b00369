import type { BackendHealthChangeView, BackendUpdate, BackendView } from '@portico/daemon/control';

export interface BackendsData {
  backends: BackendView[];
  timeline: BackendHealthChangeView[];
}

export function applyUpdate(data: BackendsData, update: BackendUpdate): BackendsData {
  return {
    backends: data.backends.map((b) => (b.name === update.backend ? { ...b, health: update.health } : b)),
    timeline: update.change ? addChange(data.timeline, update.change) : data.timeline,
  };
}

export function addChange(timeline: readonly BackendHealthChangeView[], change: BackendHealthChangeView, limit = 200): BackendHealthChangeView[] {
  if (timeline.some((c) => c.backend === change.backend && c.at === change.at && c.to === change.to)) return [...timeline];
  return [change, ...timeline].slice(0, limit);
}

/** A fresh read merged with what is shown: per backend the later check wins (a live update may be newer than the read). */
export function mergeRead(shown: BackendsData | null, read: BackendsData): BackendsData {
  if (!shown) return read;
  const seen = new Map(shown.backends.map((b) => [b.name, b.health]));
  const backends = read.backends.map((b) => {
    const live = seen.get(b.name);
    return live && (live.lastCheckAt ?? '') > (b.health.lastCheckAt ?? '') ? { ...b, health: live } : b;
  });
  let timeline = [...read.timeline];
  for (const change of [...shown.timeline].reverse()) timeline = addChange(timeline, change);
  timeline.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return { backends, timeline };
}
