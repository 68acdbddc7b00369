import type { BackendHealthChangeView, BackendState, BackendUpdate, BackendView } from '@portico/daemon/control';
import type { Tone } from '../format/state-label.js';
import { formatDuration, secondsSince } from '../format/duration.js';

export interface StateLabel {
  glyph: string;
  word: string;
  tone: Tone;
}

const STATE_LABELS: Record<BackendState, StateLabel> = {
  healthy: { glyph: '●', word: 'healthy', tone: 'good' },
  degraded: { glyph: '◐', word: 'degraded', tone: 'busy' },
  unhealthy: { glyph: '✗', word: 'unhealthy', tone: 'bad' },
  unknown: { glyph: '○', word: 'unknown', tone: 'idle' },
};

/** Green healthy, yellow degraded, red unhealthy, grey unknown; a backend without beta_health is `unchecked`. */
export function backendLabel(b: Pick<BackendView, 'health'>): StateLabel {
  if (!b.health.checked) return { glyph: '–', word: 'unchecked', tone: 'idle' };
  return STATE_LABELS[b.health.state] ?? { glyph: '?', word: String(b.health.state), tone: 'plain' };
}

export function stateWord(state: BackendState): string {
  return STATE_LABELS[state]?.word ?? state;
}

/** `4s ago`, `2m 10s ago`, or `never`. */
export function agoText(iso: string | null, nowMs: number): string {
  return iso ? `${formatDuration(secondsSince(iso, nowMs))} ago` : 'never';
}

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
