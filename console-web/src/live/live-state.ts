import type { ConfigStatus, DaemonEvent, ReloadRecord, SystemStatus } from '@portico/daemon/control';
import { mergeEvents } from './event-log';
import { applyEventToStatus } from './apply-event';

/** What the connection indicator shows: never connected yet, connected, or lost and retrying. */
export type LinkState = 'connecting' | 'live' | 'disconnected';

export interface LiveState {
  link: LinkState;
  /** Last status the daemon returned; kept while disconnected so the page still shows something. */
  status: SystemStatus | null;
  /** Client clock (ms) when `status` arrived; uptime ticks from there. */
  statusAt: number | null;
  /** Client clock (ms) when the link dropped; uptime stops there, the daemon may be gone. */
  disconnectedAt: number | null;
  statusError: string | null;
  /** Newest first. */
  events: DaemonEvent[];
  /** The last config reload when it did not apply (a rejected save), until a reload applies; null otherwise or without a gateway. */
  rejectedReload: ReloadRecord | null;
}

export type LiveAction =
  | { type: 'subscription-started' }
  | { type: 'socket-closed'; at: number }
  | { type: 'status-loaded'; status: SystemStatus; at: number }
  | { type: 'status-failed'; message: string }
  | { type: 'event'; event: DaemonEvent }
  | { type: 'config-read'; status: ConfigStatus | null };

export const initialLiveState: LiveState = {
  link: 'connecting',
  status: null,
  statusAt: null,
  disconnectedAt: null,
  statusError: null,
  events: [],
  rejectedReload: null,
};

export function liveReducer(state: LiveState, action: LiveAction): LiveState {
  switch (action.type) {
    case 'subscription-started':
      return { ...state, link: 'live', disconnectedAt: null };
    case 'socket-closed':
      if (state.link === 'disconnected') return state;
      return { ...state, link: 'disconnected', disconnectedAt: action.at };
    case 'status-loaded':
      // An answer that arrives while the link is down (a read the stopping daemon still
      // answered) would change the stale page; the read after the reconnect brings it up to date.
      if (state.link === 'disconnected') return state;
      return { ...state, status: action.status, statusAt: action.at, statusError: null };
    case 'status-failed':
      return { ...state, statusError: action.message };
    case 'event':
      return {
        ...state,
        events: mergeEvents(state.events, [action.event]),
        status: state.status ? applyEventToStatus(state.status, action.event) : state.status,
      };
    case 'config-read': {
      if (state.link === 'disconnected') return state;
      const last = action.status?.last ?? null;
      return { ...state, rejectedReload: last && last.result !== 'applied' ? last : null };
    }
  }
}

/** Client clock (ms) up to which what the page shows is known to be current, while the link is down; null while live. */
export function staleSince(state: Pick<LiveState, 'link' | 'disconnectedAt'>): number | null {
  return state.link === 'disconnected' ? state.disconnectedAt : null;
}

/** Why buttons that ask the daemon to change something are off right now, or null when they work. */
export function actionsOffReason(state: Pick<LiveState, 'link'>): string | null {
  return state.link === 'disconnected' ? 'Disconnected from the daemon: this works again once it is back.' : null;
}

/** Seconds the daemon has been up as far as we know: ticking while live, frozen once the link drops. */
export function currentUptimeSeconds(state: Pick<LiveState, 'status' | 'statusAt' | 'disconnectedAt'>, now: number): number | null {
  if (!state.status || state.statusAt === null) return null;
  const until = state.disconnectedAt !== null ? Math.min(now, state.disconnectedAt) : now;
  const elapsed = Math.max(0, until - state.statusAt) / 1000;
  return Math.floor(state.status.uptimeSeconds + elapsed);
}
