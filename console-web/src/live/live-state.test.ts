import type { ComponentStatus, ConfigStatus, DaemonEvent, ReloadRecord, SystemStatus } from '@portico/daemon/control';
import { describe, expect, it } from 'vitest';
import { coalescedTask } from './coalesced-task';
import { mergeEvents } from './event-log';
import { actionsOffReason, currentUptimeSeconds, initialLiveState, liveReducer, staleSince } from './live-state';

const component = (name: string, state: ComponentStatus['state']): ComponentStatus => ({ name, state, since: '2025-01-01T00:00:00Z', detail: null });

const status: SystemStatus = {
  version: '0.1.0',
  mode: 'all',
  pid: 42,
  startedAt: '2025-01-01T00:00:00Z',
  uptimeSeconds: 10,
  bootId: 'b1',
  lastEventId: 'b1:0',
  store: { kind: 'sqlite', location: 'data/portico.db', schemaVersion: 1 },
  components: [component('store', 'running'), component('control', 'running')],
};

const event = (seq: number, extra: Partial<DaemonEvent> = {}): DaemonEvent => ({
  id: `b1:${seq}`,
  type: 'log',
  at: '2025-01-01T00:00:00Z',
  level: 'info',
  message: `event ${seq}`,
  ...extra,
});

describe('liveReducer', () => {
  it('goes live when the subscription starts and says disconnected when the socket closes', () => {
    let state = liveReducer(initialLiveState, { type: 'subscription-started' });
    expect(state.link).toBe('live');
    state = liveReducer(state, { type: 'socket-closed', at: 5 });
    expect(state.link).toBe('disconnected');
    expect(state.disconnectedAt).toBe(5);
    state = liveReducer(state, { type: 'socket-closed', at: 9 });
    expect(state.disconnectedAt).toBe(5);
    state = liveReducer(state, { type: 'subscription-started' });
    expect(state).toMatchObject({ link: 'live', disconnectedAt: null });
  });

  it('keeps the stale page when a read answers after the link dropped, and takes the read after the reconnect', () => {
    let state = liveReducer(initialLiveState, { type: 'status-loaded', status, at: 0 });
    state = liveReducer(state, { type: 'subscription-started' });
    state = liveReducer(state, { type: 'socket-closed', at: 5 });
    const stale = state;
    state = liveReducer(state, { type: 'status-loaded', status: { ...status, pid: 4242 }, at: 6 });
    state = liveReducer(state, { type: 'config-read', status: configStatus(reload('rejected')) });
    expect(state).toBe(stale);
    state = liveReducer(state, { type: 'subscription-started' });
    state = liveReducer(state, { type: 'status-loaded', status: { ...status, pid: 99 }, at: 7 });
    expect(state).toMatchObject({ link: 'live', statusAt: 7, status: { pid: 99 } });
  });

  it('shows a component state change from an event before the refetch', () => {
    let state = liveReducer(initialLiveState, { type: 'status-loaded', status, at: 0 });
    state = liveReducer(state, { type: 'event', event: event(1, { type: 'component.state', component: component('store', 'failed') }) });
    expect(state.status?.components.map((c) => `${c.name}=${c.state}`)).toEqual(['store=failed', 'control=running']);
    expect(state.events).toHaveLength(1);
  });
});

const reload = (result: ReloadRecord['result']): ReloadRecord => ({
  id: 'i:1',
  trigger: 'file',
  startedAt: '2025-01-01T00:00:00Z',
  durationMs: 2,
  result,
  diagnostics: [],
  diff: null,
  error: null,
  sources: [{ path: 'portico.hcl', sha256: 'ab' }],
});
const configStatus = (last: ReloadRecord | null): ConfigStatus => ({ files: [], appliedAt: null, last, watching: [] });

describe('a rejected config save', () => {
  it('is kept from config.status while the last reload did not apply, and cleared by one that did', () => {
    let state = liveReducer(initialLiveState, { type: 'config-read', status: configStatus(reload('rejected')) });
    expect(state.rejectedReload?.result).toBe('rejected');
    state = liveReducer(state, { type: 'config-read', status: configStatus(reload('failed')) });
    expect(state.rejectedReload?.result).toBe('failed');
    state = liveReducer(state, { type: 'config-read', status: configStatus(reload('applied')) });
    expect(state.rejectedReload).toBeNull();
    state = liveReducer(state, { type: 'config-read', status: configStatus(reload('rejected')) });
    expect(liveReducer(state, { type: 'config-read', status: null }).rejectedReload).toBeNull();
  });
});

describe('stale and actions off', () => {
  it('says since when the page is stale and why actions are off only while the link is down', () => {
    let state = liveReducer(initialLiveState, { type: 'subscription-started' });
    expect(staleSince(state)).toBeNull();
    expect(actionsOffReason(state)).toBeNull();
    state = liveReducer(state, { type: 'socket-closed', at: 7_000 });
    expect(staleSince(state)).toBe(7_000);
    expect(actionsOffReason(state)).toBe('Disconnected from the daemon: this works again once it is back.');
    state = liveReducer(state, { type: 'subscription-started' });
    expect(staleSince(state)).toBeNull();
    expect(actionsOffReason(state)).toBeNull();
    expect(actionsOffReason(initialLiveState)).toBeNull();
  });
});

describe('mergeEvents', () => {
  it('keeps newest first, drops ids already seen, and caps the list', () => {
    let log = mergeEvents([], [event(1), event(2)]);
    log = mergeEvents(log, [event(2), event(3)]);
    expect(log.map((e) => e.id)).toEqual(['b1:3', 'b1:2', 'b1:1']);
    expect(mergeEvents(log, [event(4)], 2).map((e) => e.id)).toEqual(['b1:4', 'b1:3']);
  });
});

describe('currentUptimeSeconds', () => {
  it('ticks from the fetched uptime while live and freezes once disconnected', () => {
    expect(currentUptimeSeconds({ status, statusAt: 1_000, disconnectedAt: null }, 4_500)).toBe(13);
    expect(currentUptimeSeconds({ status, statusAt: 1_000, disconnectedAt: 2_000 }, 60_000)).toBe(11);
    expect(currentUptimeSeconds({ status: null, statusAt: null, disconnectedAt: null }, 0)).toBeNull();
  });
});

describe('coalescedTask', () => {
  it('folds requests made during a run into one more run', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const request = coalescedTask(async () => {
      runs += 1;
      await new Promise<void>((r) => (release = r));
    });
    request();
    request();
    request();
    expect(runs).toBe(1);
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect(runs).toBe(2);
    release();
    await new Promise((r) => setTimeout(r, 0));
    request();
    expect(runs).toBe(3);
    release();
  });
});
