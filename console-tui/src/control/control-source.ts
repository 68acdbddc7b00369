import type { TRPCClient } from '@trpc/client';
import type { AppRouter, ConfigStatus, DaemonEvent, SystemStatus } from '@portico/daemon/control';
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

export type ControlApi = TRPCClient<AppRouter>;

/** Everything the console needs from the daemon; the UI depends on this, not on tRPC. */
export interface ControlSource {
  readonly endpoints: ControlEndpoints;
  fetchStatus(signal?: AbortSignal): Promise<SystemStatus>;
  /** `config.status`: the serving files and the last reload (rejects when the gateway does not run in that process). */
  fetchConfigStatus(signal?: AbortSignal): Promise<ConfigStatus>;
  /** Daemon events from `fromEventId` on (null: live only); resumes by itself after a reconnect. */
  subscribeEvents(fromEventId: string | null, observer: EventObserver): () => void;
  watchLink(listener: (state: LinkState) => void): () => void;
  /** The typed control API over HTTP, for views that call their own procedures (infosessions, keys, ...). */
  readonly api?: ControlApi;
  /** The typed control API over the WebSocket, for views that subscribe (`backends.changes`, ...); opened on first use. */
  readonly subscriptions?: ControlApi;
  close(): Promise<void>;
}
