// How both consoles name a state: glyph, word and colour hint. Plain TypeScript with no Node or
// DOM types, importing only type modules: the terminal console and the web dashboard import it
// (`@portico/daemon/display`), so they always say the same thing.
import type { ComponentState, DaemonEvent } from '../control/client-types.js';

/** Colour hint for a label; the glyph and the word carry the meaning, colour only repeats it. */
export type Tone = 'good' | 'busy' | 'idle' | 'bad' | 'plain';

export interface Label {
  glyph: string;
  word: string;
  tone: Tone;
}

const COMPONENT_LABELS: Record<ComponentState, Label> = {
  registered: { glyph: '◌', word: 'registered', tone: 'idle' },
  starting: { glyph: '◐', word: 'starting', tone: 'busy' },
  running: { glyph: '●', word: 'running', tone: 'good' },
  stopping: { glyph: '◑', word: 'stopping', tone: 'busy' },
  stopped: { glyph: '○', word: 'stopped', tone: 'idle' },
  failed: { glyph: '✗', word: 'failed', tone: 'bad' },
};

const LEVEL_LABELS: Record<DaemonEvent['level'], Label> = {
  info: { glyph: '·', word: 'info', tone: 'plain' },
  warn: { glyph: '!', word: 'warn', tone: 'busy' },
  error: { glyph: '✗', word: 'error', tone: 'bad' },
};

export function componentLabel(state: ComponentState): Label {
  return labelOf(COMPONENT_LABELS, state);
}

export function levelLabel(level: DaemonEvent['level']): Label {
  return labelOf(LEVEL_LABELS, level);
}

/** The label of `key` in `labels`; `? <key>` for a state this build does not know yet (a newer daemon). */
export function labelOf<K extends string>(labels: Record<K, Label>, key: K): Label {
  return labels[key] ?? { glyph: '?', word: String(key), tone: 'plain' };
}

/** `● running`: glyph and word together, never one without the other. */
export function labelText(label: Label): string {
  return `${label.glyph} ${label.word}`;
}

/** A delivery's status as both consoles show it (the web badge, the TUI glyph column). */
export type DeliveryStatusName = 'PENDING' | 'DELIVERED' | 'DEAD';
const DELIVERY_LABELS: Record<DeliveryStatusName, Label> = {
  PENDING: { glyph: '◐', word: 'PENDING', tone: 'busy' },
  DELIVERED: { glyph: '●', word: 'DELIVERED', tone: 'good' },
  DEAD: { glyph: '✗', word: 'DEAD', tone: 'bad' },
};

export function deliveryLabel(status: DeliveryStatusName): Label {
  return labelOf(DELIVERY_LABELS, status);
}

export type JobStatusName = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
const JOB_LABELS: Record<JobStatusName, Label> = {
  QUEUED: { glyph: '○', word: 'QUEUED', tone: 'idle' },
  RUNNING: { glyph: '◐', word: 'RUNNING', tone: 'busy' },
  SUCCEEDED: { glyph: '●', word: 'SUCCEEDED', tone: 'good' },
  FAILED: { glyph: '✗', word: 'FAILED', tone: 'bad' },
  CANCELLED: { glyph: '–', word: 'CANCELLED', tone: 'idle' },
};

export function jobLabel(status: JobStatusName): Label {
  return labelOf(JOB_LABELS, status);
}

export type BackendStateName = 'healthy' | 'degraded' | 'unhealthy' | 'unknown';
const BACKEND_LABELS: Record<BackendStateName, Label> = {
  healthy: { glyph: '●', word: 'healthy', tone: 'good' },
  degraded: { glyph: '◐', word: 'degraded', tone: 'busy' },
  unhealthy: { glyph: '✗', word: 'unhealthy', tone: 'bad' },
  unknown: { glyph: '○', word: 'unknown', tone: 'idle' },
};

/** Green healthy, yellow degraded, red unhealthy, grey unknown; a backend without beta_health is `unchecked`. */
export function backendLabel(health: { state: BackendStateName; checked: boolean }): Label {
  if (!health.checked) return { glyph: '–', word: 'unchecked', tone: 'idle' };
  return labelOf(BACKEND_LABELS, health.state);
}

export type ReloadResultName = 'applied' | 'rejected' | 'failed';
const RELOAD_LABELS: Record<ReloadResultName, Label> = {
  applied: { glyph: '✓', word: 'applied', tone: 'good' },
  rejected: { glyph: '✗', word: 'rejected', tone: 'bad' },
  failed: { glyph: '✗', word: 'failed', tone: 'bad' },
};

/** What a configuration reload came to. */
export function reloadLabel(result: ReloadResultName): Label {
  return labelOf(RELOAD_LABELS, result);
}
