import { afterEach, describe, expect, it } from 'vitest';
import { FakeSource, sampleConfigStatus, sampleReload } from '../testing/fake-source.js';
import { LiveStore } from './live-store.js';

const stores: LiveStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.stop();
});

function start(options: ConstructorParameters<typeof LiveStore>[2] = {}, source = new FakeSource()): { source: FakeSource; store: LiveStore } {
  const store = new LiveStore(source, source.status, options);
  stores.push(store);
  store.start();
  return { source, store };
}

/** A daemon whose last config reload was rejected. */
function withRejectedSave(): FakeSource {
  const source = new FakeSource();
  source.configStatus = sampleConfigStatus(sampleReload('rejected'));
  return source;
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

  it('keeps the moment the link dropped through the retries, and forgets it when the link is back', () => {
    let now = 1_000;
    const { source, store } = start({ now: () => now });
    source.setLink({ kind: 'open' });
    expect(store.getState().disconnectedAt).toBeNull();
    source.setLink({ kind: 'lost', problem: { code: 'unreachable', reason: 'connection refused' } });
    now = 5_000;
    source.setLink({ kind: 'connecting' });
    source.setLink({ kind: 'lost', problem: { code: 'unreachable', reason: 'connection refused' } });
    expect(store.getState()).toMatchObject({ connection: 'disconnected', disconnectedAt: 1_000 });
    source.setLink({ kind: 'open' });
    expect(store.getState()).toMatchObject({ connection: 'connected', disconnectedAt: null });
  });

  it('does not apply a status read that was under way when the link dropped, nor let it hold up the read after the reconnect', async () => {
    const { source, store } = start();
    source.setLink({ kind: 'open' });
    let answer: (status: typeof source.status) => void = () => undefined;
    source.fetchStatus = () => new Promise((resolve) => (answer = resolve));
    const reading = store.refresh();
    source.setLink({ kind: 'lost', problem: null });
    const stale = store.getState();
    // Back before the old read answered: a new read goes out (the old one does not hold it up) and is applied.
    source.fetchStatus = FakeSource.prototype.fetchStatus;
    source.status = { ...source.status, pid: 99 };
    source.setLink({ kind: 'open' });
    await expect.poll(() => store.getState().status.pid).toBe(99);
    expect(store.getState().statusReadAt).toBeGreaterThanOrEqual(stale.statusReadAt);
    // The old daemon's answer (it answered while stopping) arrives last and changes nothing.
    const current = store.getState();
    answer({ ...stale.status, pid: 4242 });
    await reading;
    expect(store.getState()).toBe(current);
  });

  it('shows a rejected save from config.status at start, until a reload applies', async () => {
    const { source, store } = start({}, withRejectedSave());
    await expect.poll(() => store.getState().rejectedReload?.result).toBe('rejected');
    source.configStatus = sampleConfigStatus(sampleReload('applied'));
    source.emit({ type: 'config.reloaded', message: 'gateway config reload (file) applied in 3 ms: unchanged' });
    await expect.poll(() => store.getState().rejectedReload).toBeNull();
    source.configStatus = sampleConfigStatus(sampleReload('failed'));
    source.emit({ type: 'config.reloaded', level: 'error', message: 'gateway config reload (file) failed' });
    await expect.poll(() => store.getState().rejectedReload?.error).toBe('listen EADDRINUSE 0.0.0.0:8080');
  });

  it('keeps a rejected save on screen while the daemon is unreachable, and shows none where the gateway does not run', async () => {
    const { source, store } = start({}, withRejectedSave());
    await expect.poll(() => store.getState().rejectedReload).not.toBeNull();
    source.fetchConfigStatus = () => Promise.reject(Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } }));
    await store.refreshConfig();
    expect(store.getState().rejectedReload).not.toBeNull();
    source.fetchConfigStatus = FakeSource.prototype.fetchConfigStatus;
    source.configStatus = null;
    await store.refreshConfig();
    expect(store.getState().rejectedReload).toBeNull();
  });

  it('reads config.status again after a reconnect, and folds a burst of reload events into at most two reads', async () => {
    const { source } = start();
    await expect.poll(() => source.configReads).toBe(1);
    source.setLink({ kind: 'open' });
    source.setLink({ kind: 'lost', problem: null });
    source.setLink({ kind: 'open' });
    await expect.poll(() => source.configReads).toBe(2);
    for (let i = 0; i < 10; i++) source.emit({ type: 'config.reloaded', message: `reload ${i}` });
    await new Promise((r) => setTimeout(r, 30));
    expect(source.configReads).toBeLessThanOrEqual(4);
  });
});
