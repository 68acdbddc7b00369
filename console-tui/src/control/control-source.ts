import type { DaemonEvent, SystemStatus } from '@portico/daemon/control';
import type { ControlProblem } from './control-problem.js';
import type { ControlEndpoints } from './endpoints.js';

/** The live (WebSocket) link to the daemon; the client reconnects by itself after `lost`. */
export type LinkState =
  | { kind: 'connecting' }
  | { kind: 'open' }
  | { kind: 'lost'; problem: ControlProblem | null }
  | { kind: 'refused'; problem: ControlProblem };

export interface EventObserver {
  onEvent(event: DaemonEvent): void;
  onError(problem: ControlProblem): void;
}

/** Everything the console needs from the daemon; the UI depends on this, not on tRPC. */
export interface ControlSource {
  readonly endpoints: ControlEndpoints;
  fetchStatus(signal?: AbortSignal): Promise<SystemStatus>;
  /** Daemon events from `fromEventId` on (null: live only); resumes by itself after a reconnect. */
  subscribeEvents(fromEventId: string | null, observer: EventObserver): () => void;
  watchLink(listener: (state: LinkState) => void): () => void;
  close(): Promise<void>;
}
