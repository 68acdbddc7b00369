import { failureText } from './failure-text';

export interface QueryState<T> {
  /** The last answer; kept while a newer read runs or fails, so the page still shows something. */
  data: T | null;
  /** Why the last read failed, in words for the operator; null after a good read. */
  error: string | null;
  /** True until the first read of this runner ends (answer or failure). */
  loading: boolean;
}

export interface QueryRunnerOptions<T> {
  /** Re-read this often (ms) while connected; none when absent. */
  pollMs?: number;
  /** Folds a fresh answer into what is shown (e.g. keep rows a live update added); replaces it when absent. */
  merge?: (shown: T | null, read: T) => T;
}

export interface QueryRunner {
  /** Reads now, even while disconnected (the operator asked: the page says why it failed). A read still running is superseded: its answer is dropped. */
  refresh(): void;
  /** While disconnected polls and events start no read; the link coming back reads once. */
  setConnected(connected: boolean): void;
  /** An event id the caller reads again after; the first id seen only records where it stands. */
  noticeEvent(id: string | null): void;
  start(): void;
  /** Ends polling; answers that arrive afterwards are dropped. */
  stop(): void;
}

/**
 * The fetch/cancel/poll cycle of a web view, without React: `useControlQuery` drives it and
 * keeps what is shown; `onChange` gets each change as a function of what is shown now.
 * Only the newest read may change what is shown, so a slow answer to an old filter never
 * overwrites a newer one.
 */
export function createQueryRunner<T>(fetch: () => Promise<T>, onChange: (change: (shown: QueryState<T>) => QueryState<T>) => void, options: QueryRunnerOptions<T> = {}): QueryRunner {
  let generation = 0;
  let stopped = false;
  let connected = true;
  let lastEvent: string | null | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;

  const read = () => {
    if (stopped) return;
    const mine = ++generation;
    let reading: Promise<T>;
    try {
      reading = fetch();
    } catch (error) {
      reading = Promise.reject(error);
    }
    reading.then(
      (answer) => {
        if (stopped || mine !== generation) return;
        onChange((shown) => ({ data: options.merge ? options.merge(shown.data, answer) : answer, error: null, loading: false }));
      },
      (error: unknown) => {
        if (stopped || mine !== generation) return;
        const text = failureText(error);
        onChange((shown) => ({ ...shown, error: text, loading: false }));
      },
    );
  };

  /** A poll or an event: skipped while disconnected (the read on reconnect covers it). */
  const readWhenConnected = () => {
    if (connected) read();
  };

  return {
    refresh: read,
    setConnected(now) {
      const back = now && !connected;
      connected = now;
      // Whatever happened while the link was down (events missed, polls skipped): one read.
      if (back) read();
    },
    noticeEvent(id) {
      const first = lastEvent === undefined;
      if (id === lastEvent) return;
      lastEvent = id;
      if (!first) readWhenConnected();
    },
    start() {
      read();
      if (options.pollMs) timer = setInterval(readWhenConnected, options.pollMs);
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
