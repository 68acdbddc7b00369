import type { ComponentState, DaemonEvent } from '@portico/daemon/control';

/** Colour hint for a label; the glyph and word carry the meaning, colour only repeats it. */
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

export function labelText(label: Label): string {
  return `${label.glyph} ${label.word}`;
}
