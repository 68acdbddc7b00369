// How both consoles show states and times. Plain TypeScript with no Node or DOM types:
// the terminal console and the web dashboard import it, so they always say the same thing.
import type { ComponentState, DaemonEvent } from './client-types.js';

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
  return COMPONENT_LABELS[state] ?? { glyph: '?', word: String(state), tone: 'plain' };
}

export function levelLabel(level: DaemonEvent['level']): Label {
  return LEVEL_LABELS[level] ?? { glyph: '?', word: String(level), tone: 'plain' };
}

/** `● running`: glyph and word together, never one without the other. */
export function labelText(label: Label): string {
  return `${label.glyph} ${label.word}`;
}

/** Local wall-clock time `HH:MM:SS` of an ISO timestamp; the raw text if it does not parse. */
export function formatClock(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}`;
}

/** Local `YYYY-MM-DD HH:MM:SS` of an ISO timestamp; the raw text if it does not parse. */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${formatClock(iso)}`;
}

/** Local `HH:MM:SS` when `iso` falls on the local day of `nowMs`, else `YYYY-MM-DD HH:MM:SS`: a bare time from yesterday reads as today's. */
export function formatClockOrDate(iso: string, nowMs: number): string {
  return new Date(iso).toDateString() === new Date(nowMs).toDateString() ? formatClock(iso) : formatDateTime(iso);
}

export function pad2(n: number): string {
  return String(n).padStart(2, '0');
}
