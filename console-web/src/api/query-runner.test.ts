import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UNREACHABLE } from './control-client';
import { createQueryRunner, type QueryRunnerOptions, type QueryState } from './query-runner';

/** A fetch whose answers the test hands out one by one, in any order. */
function controlledFetch() {
  const pending: Array<{ resolve: (v: string) => void; reject: (e: unknown) => void }> = [];
  const fetch = () => new Promise<string>((resolve, reject) => pending.push({ resolve, reject }));
  return { fetch, pending };
}

function harness(options: QueryRunnerOptions<string> = {}) {
  const { fetch, pending } = controlledFetch();
  let shown: QueryState<string> = { data: null, error: null, loading: true };
  const runner = createQueryRunner(fetch, (change) => (shown = change(shown)), options);
  return { runner, pending, shown: () => shown };
}

const settle = () => new Promise<void>((resolve) => queueMicrotask(resolve)).then(() => undefined);

describe('the web views query runner', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('drops the answer of a read that a newer one superseded, even when it arrives last', async () => {
    const h = harness();
    h.runner.start();
    h.runner.refresh();
    expect(h.pending).toHaveLength(2);
    h.pending[1]!.resolve('new');
    await settle();
    h.pending[0]!.resolve('old');
    await settle();
    expect(h.shown()).toEqual({ data: 'new', error: null, loading: false });
  });

  it('reads again every pollMs, and no more after stop (a late answer is dropped too)', async () => {
    const h = harness({ pollMs: 5_000 });
    h.runner.start();
    expect(h.pending).toHaveLength(1);
    vi.advanceTimersByTime(5_000);
    expect(h.pending).toHaveLength(2);
    h.runner.stop();
    vi.advanceTimersByTime(20_000);
    expect(h.pending).toHaveLength(2);
    h.pending[1]!.resolve('late');
    await settle();
    expect(h.shown().data).toBeNull();
  });

  it('reads again after each new event id, not for the id it started with', () => {
    const h = harness();
    h.runner.noticeEvent('ev-1');
    h.runner.start();
    h.runner.noticeEvent('ev-1');
    expect(h.pending).toHaveLength(1);
    h.runner.noticeEvent('ev-2');
    expect(h.pending).toHaveLength(2);
  });

  it('keeps the last answer on a failure and says why in words, "not reachable" instead of "Failed to fetch"', async () => {
    const h = harness();
    h.runner.start();
    h.pending[0]!.resolve('rows');
    await settle();
    h.runner.refresh();
    h.pending[1]!.reject(new TypeError('Failed to fetch'));
    await settle();
    expect(h.shown()).toEqual({ data: 'rows', error: UNREACHABLE, loading: false });
    h.runner.refresh();
    h.pending[2]!.reject(Object.assign(new Error('No job abc.'), { data: { code: 'NOT_FOUND' } }));
    await settle();
    expect(h.shown().error).toBe('No job abc.');
    h.runner.refresh();
    h.pending[3]!.resolve('rows again');
    await settle();
    expect(h.shown()).toEqual({ data: 'rows again', error: null, loading: false });
  });

  it('polls and follows events not at all while disconnected, then reads once when the link is back', () => {
    const h = harness({ pollMs: 1_000 });
    h.runner.start();
    h.runner.setConnected(false);
    vi.advanceTimersByTime(5_000);
    h.runner.noticeEvent('ev-9');
    expect(h.pending).toHaveLength(1);
    h.runner.setConnected(true);
    expect(h.pending).toHaveLength(2);
    h.runner.setConnected(true);
    expect(h.pending).toHaveLength(2);
  });

  it('still reads when asked to while disconnected (a button), so the page can say why it failed', () => {
    const h = harness({ pollMs: 1_000 });
    h.runner.start();
    h.runner.setConnected(false);
    h.runner.refresh();
    expect(h.pending).toHaveLength(2);
  });

  it('folds a fresh answer into what is shown when asked to merge', async () => {
    const h = harness({ merge: (shown, read) => `${shown ?? ''}+${read}` });
    h.runner.start();
    h.pending[0]!.resolve('a');
    await settle();
    h.runner.refresh();
    h.pending[1]!.resolve('b');
    await settle();
    expect(h.shown().data).toBe('+a+b');
  });
});
