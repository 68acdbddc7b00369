import type { BackendHealthChangeView, BackendUpdate, BackendView } from '@portico/daemon/control';

export interface BackendsData {
  backends: BackendView[];
  timeline: BackendHealthChangeView[];
}

export const STATE_LABEL = {
  healthy: { glyph: '●', word: 'healthy', tone: 'good' },
  degraded: { glyph: '◐', word: 'degraded', tone: 'busy' },
  unhealthy: { glyph: '✗', word: 'unhealthy', tone: 'bad' },
  unknown: { glyph: '○', word: 'unknown', tone: 'idle' },
} as const;

/** Green healthy, yellow degraded, red unhealthy, grey unknown; a backend without beta_health is `unchecked`. */
export function backendLabel(health: Pick<BackendView['health'], 'state' | 'checked'>): { glyph: string; word: string; tone: 'good' | 'busy' | 'bad' | 'idle' } {
  if (!health.checked) return { glyph: '–', word: 'unchecked', tone: 'idle' };
  return STATE_LABEL[health.state] ?? { glyph: '?', word: String(health.state), tone: 'idle' };
}

/** `4s ago`, `3m ago`, `2h ago`, or `never`. */
export function agoText(iso: string | null, nowMs: number): string {
  if (!iso) return 'never';
  const seconds = Math.max(0, Math.floor((nowMs - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  return `${Math.floor(seconds / 3600)}h ago`;
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
