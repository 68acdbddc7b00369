import { afterEach, describe, expect, it } from 'vitest';
import { FakeSource } from '../test-support/fake-source.js';
import { LiveStore } from './live-store.js';

const stores: LiveStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.stop();
});

function start(options: ConstructorParameters<typeof LiveStore>[2] = {}): { source: FakeSource; store: LiveStore } {
  const source = new FakeSource();
  const store = new LiveStore(source, source.status, options);
  stores.push(store);
  store.start();
  return { source, store };
}

describe('LiveStore', () => {
  it('asks for everything the daemon still buffers, then keeps events in order without duplicates', () => {
    const { source, store } = start();
    expect(source.fromEventIds).toEqual(['boot1:0']);
    const a = source.emit({ message: 'a' });
    source.emit({ message: 'b' });
    for (const o of source.observers) o.onEvent(a);
    expect(store.getState().events.map((e) => e.message)).toEqual(['a', 'b']);
  });

  it('does not roll the status back with replayed events it already reflects, but applies newer ones', () => {
    const source = new FakeSource();
    source.status = { ...source.status, lastEventId: `${source.status.bootId}:2` };
    const { store } = { store: new LiveStore(source, source.status) };
    stores.push(store);
    store.start();
    const storeNow = source.status.components.find((c) => c.name === 'store')!;
    source.emit({ message: 'store starting', type: 'component.state', component: { ...storeNow, state: 'starting' } });
    expect(store.getState().status.components.find((c) => c.name === 'store')?.state).toBe('running');
    source.emit({ message: 'store running', type: 'component.state', component: { ...storeNow, state: 'running' } });
    source.emit({ message: 'store stopping', type: 'component.state', component: { ...storeNow, state: 'stopping' } });
    expect(store.getState().status.components.find((c) => c.name === 'store')?.state).toBe('stopping');
  });

  it('keeps at most maxEvents, dropping the oldest', () => {
    const { source, store } = start({ maxEvents: 2 });
    for (const m of ['a', 'b', 'c']) source.emit({ message: m });
    expect(store.getState().events.map((e) => e.message)).toEqual(['b', 'c']);
  });

  it('reads the status again when an event comes from a new boot', async () => {
    const { source, store } = start();
    source.status = { ...source.status, bootId: 'boot2', pid: 99 };
    for (const o of source.observers) o.onEvent({ id: 'boot2:1', type: 'daemon.started', at: new Date().toISOString(), level: 'info', message: 'started' });
    await expect.poll(() => store.getState().status.pid).toBe(99);
  });

  it('subscribes again from the last event after the subscription failed', async () => {
    const { source } = start({ resubscribeMs: 10 });
    const last = source.emit({ message: 'seen' });
    source.fail({ code: 'failed', reason: 'server error' });
    await expect.poll(() => source.fromEventIds).toEqual(['boot1:0', last.id]);
  });

  it('stops and says so when the token is refused', async () => {
    const { source, store } = start({ resubscribeMs: 10 });
    source.fail({ code: 'unauthorized', reason: 'UNAUTHORIZED' });
    source.setLink({ kind: 'refused', problem: { code: 'unauthorized', reason: 'UNAUTHORIZED' } });
    await new Promise((r) => setTimeout(r, 50));
    expect(source.fromEventIds).toHaveLength(1);
    expect(store.getState().connection).toBe('refused');
  });
});
