import type { DaemonEvent } from '@portico/daemon/control';
import { useEffect, useReducer, useRef, useState } from 'react';
import { connectControl, type ControlClient } from '../api/control-client';
import { daemonAnswered, failureText } from '../api/failure-text';
import { coalescedTask } from './coalesced-task';
import { initialLiveState, liveReducer, type LiveState } from './live-state';

/**
 * The event bus replays everything it still buffers for an id from another boot
 * (daemon/src/control/event-bus.ts), which is how a fresh dashboard gets recent events.
 */
/** How many recent events a fresh dashboard shows before live ones. */
const EVENT_BACKLOG = 200;

const RESUBSCRIBE_DELAY_MS = 2_000;

/** Event types after which `system.status` reads differently; log lines do not change it. */
const STATUS_CHANGING_EVENTS: ReadonlySet<DaemonEvent['type']> = new Set(['daemon.started', 'daemon.stopping', 'component.state']);

/** Event types after which `config.status` may say something else about the last reload. */
const CONFIG_CHANGING_EVENTS: ReadonlySet<DaemonEvent['type']> = new Set(['daemon.started', 'config.reloaded']);

export interface LiveDaemon {
  live: LiveState;
  client: ControlClient | null;
}

/**
 * One control connection for the logged-in tab: fetches the status, follows `system.events`,
 * and refetches the status whenever the subscription (re)starts or an event changes it.
 * `onRefused` runs when the daemon answers 401 (the token is no longer accepted).
 */
export function useLiveDaemon(token: string, onRefused: () => void): LiveDaemon {
  const [live, dispatch] = useReducer(liveReducer, initialLiveState);
  const [client, setClient] = useState<ControlClient | null>(null);
  const onRefusedRef = useRef(onRefused);
  onRefusedRef.current = onRefused;

  useEffect(() => {
    let disposed = false;
    const connection = connectControl({
      token,
      onUnauthorized: () => {
        if (!disposed) onRefusedRef.current();
      },
      onSocketClose: () => {
        if (disposed) return;
        dispatch({ type: 'socket-closed', at: Date.now() });
        // A WebSocket refused for its token just closes; the HTTP call tells us if it was a 401.
        refreshStatus();
      },
    });

    // A save that did not apply shows on every view until a reload applies; a tab opened later reads it here too.
    const refreshConfig = coalescedTask(async () => {
      try {
        const status = await connection.client.config.status.query();
        if (!disposed) dispatch({ type: 'config-read', status });
      } catch (error) {
        // Unreachable: keep what is shown (the link says why). Refused (no gateway in that process): nothing to show.
        if (!disposed && daemonAnswered(error)) dispatch({ type: 'config-read', status: null });
      }
    });

    const refreshStatus = coalescedTask(async () => {
      try {
        const status = await connection.client.system.status.query();
        if (!disposed) dispatch({ type: 'status-loaded', status, at: Date.now() });
      } catch (error) {
        if (!disposed) dispatch({ type: 'status-failed', message: failureText(error) });
      }
    });

    let lastEventId: string | null = null;
    let subscription: { unsubscribe(): void } | null = null;
    let generation = 0;
    let resubscribeTimer: ReturnType<typeof setTimeout> | undefined;
    const follow = () => {
      const mine = ++generation;
      const current = () => !disposed && mine === generation;
      // A subscription the server ended or failed is followed again, from the last event seen.
      const followAgainSoon = () => {
        if (!current()) return;
        clearTimeout(resubscribeTimer);
        resubscribeTimer = setTimeout(follow, RESUBSCRIBE_DELAY_MS);
      };
      subscription?.unsubscribe();
      subscription = connection.client.system.events.subscribe(
        { lastEventId, backlog: EVENT_BACKLOG },
        {
          onStarted: () => {
            if (!current()) return;
            dispatch({ type: 'subscription-started' });
            refreshStatus();
            refreshConfig();
          },
          onData: ({ id, data: event }) => {
            if (!current()) return;
            lastEventId = id;
            dispatch({ type: 'event', event });
            if (STATUS_CHANGING_EVENTS.has(event.type)) refreshStatus();
            if (CONFIG_CHANGING_EVENTS.has(event.type)) refreshConfig();
          },
          onConnectionStateChange: (state) => {
            if (current() && state.state === 'connecting' && state.error) dispatch({ type: 'socket-closed', at: Date.now() });
          },
          onError: (error) => {
            if (!current()) return;
            dispatch({ type: 'status-failed', message: failureText(error) });
            followAgainSoon();
          },
          onComplete: followAgainSoon,
        },
      );
    };
    follow();

    refreshStatus();
    refreshConfig();
    // The tRPC client is a callable proxy; passed bare, React would call it as an updater.
    setClient(() => connection.client);
    return () => {
      disposed = true;
      clearTimeout(resubscribeTimer);
      subscription?.unsubscribe();
      void connection.close();
    };
  }, [token]);

  return { live, client };
}
