// Types shared with the consoles. Plain data only: no Node types may leak into this file,
// because the web console (DOM-only tsconfig) imports it.

export type ComponentState = 'registered' | 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

export interface ComponentStatus {
  name: string;
  state: ComponentState;
  /** ISO time of the last state change. */
  since: string;
  /** Human detail, e.g. the listen address or the error that failed the component. */
  detail: string | null;
}

export const DAEMON_MODES = ['all', 'gateway', 'cds', 'callback-worker', 'ingest-worker', 'retention-worker'] as const;
export type DaemonMode = (typeof DAEMON_MODES)[number];

export interface SystemStatus {
  version: string;
  mode: DaemonMode;
  pid: number;
  /** ISO time the daemon started. */
  startedAt: string;
  uptimeSeconds: number;
  /** Identifies this daemon process; changes on every restart. */
  bootId: string;
  /** The id of the newest event this snapshot already reflects; apply only events after it. */
  lastEventId: string;
  store: { kind: 'sqlite' | 'postgres'; location: string; schemaVersion: number };
  components: ComponentStatus[];
}

export const DAEMON_EVENT_TYPES = ['daemon.started', 'daemon.stopping', 'component.state', 'log', 'job.state', 'delivery.state', 'infosessions.reloaded', 'infosessions.keys', 'config.reloaded', 'backend.health', 'cds.snapshot', 'cds.nack', 'cds.config', 'gateway.access_denied'] as const;
export type DaemonEventType = (typeof DAEMON_EVENT_TYPES)[number];

export const EVENT_LEVELS = ['info', 'warn', 'error'] as const;
export type EventLevel = (typeof EVENT_LEVELS)[number];

/** Facts of an event as plain values (ids, attempt, target, the error text); never a secret. */
export type EventDetails = Record<string, string | number | boolean | null>;

/** The daemon process an event came from, when another process sharing the database emitted it. */
export interface EventOrigin {
  bootId: string;
  mode: DaemonMode;
  pid: number;
  host: string;
}

export interface DaemonEvent {
  /** `<bootId>:<seq>`; pass the last one seen as `lastEventId` to resume. */
  id: string;
  type: DaemonEventType;
  /** ISO time. */
  at: string;
  level: EventLevel;
  message: string;
  /** Set for component.state events. */
  component?: ComponentStatus;
  /** The facts behind a warning or error, e.g. delivery and job ids, attempt, target, error. */
  details?: EventDetails;
  /** Set when another daemon process (split modes, several daemons on one database) emitted it. */
  origin?: EventOrigin;
}
