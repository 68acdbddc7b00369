// An in-memory ControlSource for UI tests: push events and link states by hand.
import type { DaemonEvent, SystemStatus } from '@portico/daemon/control';
import type { ControlProblem } from '../control/control-problem.js';
import type { ControlSource, EventObserver, LinkState } from '../control/control-source.js';
import { controlEndpoints } from '../control/endpoints.js';

export function sampleStatus(overrides: Partial<SystemStatus> = {}): SystemStatus {
  const startedAt = new Date(Date.now() - 3_723_000).toISOString();
  return {
    version: '0.1.0',
    mode: 'all',
    pid: 4242,
    startedAt,
    uptimeSeconds: 3_723,
    bootId: 'boot1',
    lastEventId: 'boot1:0',
    store: { kind: 'sqlite', location: 'data/portico.db', schemaVersion: 3 },
    components: [
      { name: 'store', state: 'running', since: startedAt, detail: 'sqlite data/portico.db' },
      { name: 'control', state: 'running', since: startedAt, detail: '127.0.0.1:9901' },
      { name: 'gateway', state: 'starting', since: startedAt, detail: null },
      { name: 'cds', state: 'stopped', since: startedAt, detail: null },
      { name: 'callback-worker', state: 'failed', since: startedAt, detail: 'SERVICE_URL is not set; the callback worker needs it to deliver webhooks' },
    ],
    ...overrides,
  };
}

export class FakeSource implements ControlSource {
  readonly endpoints = controlEndpoints('http://127.0.0.1:9901');
  observers = new Set<EventObserver>();
  links = new Set<(state: LinkState) => void>();
  fromEventIds: Array<string | null> = [];
  statusReads = 0;
  constructor(public status: SystemStatus = sampleStatus()) {}
  async fetchStatus(): Promise<SystemStatus> {
    this.statusReads += 1;
    return structuredClone(this.status);
  }
  subscribeEvents(fromEventId: string | null, observer: EventObserver): () => void {
    this.fromEventIds.push(fromEventId);
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }
  watchLink(listener: (state: LinkState) => void): () => void {
    this.links.add(listener);
    listener({ kind: 'connecting' });
    return () => this.links.delete(listener);
  }
  async close(): Promise<void> {}
  fail(problem: ControlProblem): void {
    for (const o of [...this.observers]) o.onError(problem);
  }
  setLink(state: LinkState): void {
    for (const l of this.links) l(state);
  }
  #seq = 0;
  emit(partial: Partial<DaemonEvent> & Pick<DaemonEvent, 'message'>): DaemonEvent {
    this.#seq += 1;
    const event: DaemonEvent = { id: `${this.status.bootId}:${this.#seq}`, type: 'log', at: new Date().toISOString(), level: 'info', ...partial };
    for (const o of this.observers) o.onEvent(event);
    return event;
  }
}
