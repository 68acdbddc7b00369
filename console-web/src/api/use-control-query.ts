import type { DaemonEvent } from '@portico/daemon/control';
import { useEffect, useRef, useState, type DependencyList } from 'react';
import { newestEventOf } from '../infosessions/session-table';
import { useControlClient, useLive } from '../live/live-context';
import type { ControlClient } from './control-client';
import { createQueryRunner, type QueryRunner, type QueryState } from './query-runner';

export interface ControlQueryOptions<T> {
  /** Re-read this often (ms) while connected: for what changes without an event (usage counters, other processes). */
  pollMs?: number;
  /** Daemon event types after which the answer may differ: each new one re-reads. */
  refetchOn?: ReadonlyArray<DaemonEvent['type']>;
  /** False: do not read (nothing to ask yet); the last answer is dropped. */
  enabled?: boolean;
  /** Folds a fresh answer into what is shown; replaces it when absent. */
  merge?: (shown: T | null, read: T) => T;
}

export interface ControlQuery<T> extends QueryState<T> {
  /** Reads again now (after an action changed something). */
  refresh(): void;
  /** Changes what is shown without a read (a live update pushed by a subscription). */
  update(change: (shown: T) => T): void;
}

/**
 * The one way a web view reads from the daemon:
 *
 *   const jobs = useControlQuery((c) => c.jobs.list.query({ status }), [status], { pollMs: 5_000, refetchOn: ['job.state'] });
 *
 * Reads when `deps` change (dropping answers to older reads), every `pollMs`, and after each
 * `refetchOn` event; while the link to the daemon is down it reads nothing and keeps the last
 * answer (the page marks it stale), then reads once when the link is back.
 */
export function useControlQuery<T>(fetcher: (client: ControlClient) => Promise<T>, deps: DependencyList, options: ControlQueryOptions<T> = {}): ControlQuery<T> {
  const client = useControlClient();
  const live = useLive();
  const enabled = options.enabled ?? true;
  const connected = live.link !== 'disconnected';
  const eventId = options.refetchOn ? newestEventOf(live.events, options.refetchOn) : null;
  const [state, setState] = useState<QueryState<T>>({ data: null, error: null, loading: enabled });
  const runner = useRef<QueryRunner | null>(null);
  const latest = useRef({ fetcher, merge: options.merge, connected, eventId });
  latest.current = { fetcher, merge: options.merge, connected, eventId };

  useEffect(() => {
    if (!enabled) {
      setState({ data: null, error: null, loading: false });
      return;
    }
    const current = createQueryRunner(() => latest.current.fetcher(client), setState, {
      pollMs: options.pollMs,
      merge: (shown, read) => (latest.current.merge ? latest.current.merge(shown, read) : read),
    });
    // What is shown stays while the new read runs (a new filter): no blank page in between.
    setState((shown) => ({ ...shown, loading: shown.data === null }));
    current.setConnected(latest.current.connected);
    current.noticeEvent(latest.current.eventId);
    current.start();
    runner.current = current;
    return () => {
      current.stop();
      if (runner.current === current) runner.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, enabled, options.pollMs, ...deps]);

  useEffect(() => runner.current?.setConnected(connected), [connected]);
  useEffect(() => runner.current?.noticeEvent(eventId), [eventId]);

  return {
    ...state,
    refresh: () => runner.current?.refresh(),
    update: (change) => setState((shown) => (shown.data === null ? shown : { ...shown, data: change(shown.data) })),
  };
}
