import type { ComponentType } from 'react';
import type { ControlSource } from '../control/control-source.js';
import type { KeyScopeState } from '../keys/key-registry.js';
import type { LiveState } from '../live/live-store.js';

export interface ViewProps {
  live: LiveState;
  /** For views that read more than the live state (config, backends, ...). */
  source: ControlSource;
  /** Local clock, ticking once a second; stopped at the moment the link dropped while disconnected (the screen is a snapshot of then). */
  nowMs: number;
  width: number;
  height: number;
  /** True while on screen; a view that polls should poll only then. */
  visible: boolean;
  /** Pass to `useKeyScope`: live while in front, listed while behind the help, off otherwise. */
  keyState: KeyScopeState;
  /** Brings view `id` to the front, asking it to show `target` (e.g. a delivery id); absent in tests that render one view. */
  openView?: (id: string, target?: string) => void;
  /** What another view asked this one to show, until the next request (`seq` tells requests apart). */
  focus?: ViewFocus | null;
}

/** A request from one view to another: show this item. */
export interface ViewFocus {
  target: string;
  seq: number;
}

/** One screen of the console, reached with `:<id>` or an alias. */
export interface ViewDefinition {
  id: string;
  title: string;
  aliases: readonly string[];
  /** One line for the help's list of views. */
  description: string;
  Component: ComponentType<ViewProps>;
}
