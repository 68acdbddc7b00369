import { useEffect, useState } from 'react';
import type { DaemonEvent } from '@portico/daemon/control';
import { toControlProblem } from '../control/control-problem.js';

export interface QueryState<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
}

/** The id of the newest event of one of `types`; a dependency that changes when such an event arrives. */
export function lastEventOf(events: readonly DaemonEvent[], types: readonly string[]): string | null {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const e = events[i]!;
    if (types.includes(e.type)) return e.id;
  }
  return null;
}

/**
 * Runs `load` while the view is visible and again whenever `deps` change (filter, a reload event,
 * a refresh tick); keeps the last data on screen while the next read is under way.
 */
export function useControlQuery<T>(visible: boolean, load: (() => Promise<T>) | null, deps: readonly unknown[]): QueryState<T> {
  const [state, setState] = useState<QueryState<T>>({ data: null, error: null, loading: false });
  useEffect(() => {
    if (!visible) return;
    if (!load) {
      setState({ data: null, error: 'this console cannot reach the control API for this view', loading: false });
      return;
    }
    let cancelled = false;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => !cancelled && setState({ data, error: null, loading: false }),
      (error: unknown) => !cancelled && setState((s) => ({ data: s.data, error: problemText(error), loading: false })),
    );
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [visible, ...deps]);
  return state;
}

/** One line for a failed call: the daemon's own message when it sent one, else the problem. */
export function problemText(error: unknown): string {
  const problem = toControlProblem(error);
  if (problem.code === 'failed' && error instanceof Error && error.message) return error.message;
  return `${problem.code}: ${problem.reason}`;
}
