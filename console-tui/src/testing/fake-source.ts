// An in-memory ControlSource for UI tests: push events and link states by hand.
import type { ConfigStatus, DaemonEvent, ReloadRecord, SystemStatus } from '@portico/daemon/control';
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

/** A reload record; `rejected` gets one error at portico.hcl:9,7 unless `diagnostics` say otherwise. */
export function sampleReload(result: ReloadRecord['result'], overrides: Partial<ReloadRecord> = {}): ReloadRecord {
  const diagnostics: ReloadRecord['diagnostics'] =
    result === 'rejected'
      ? [{ severity: 'error', file: '/etc/portico/portico.hcl', line: 9, column: 7, summary: 'Unsupported argument', detail: 'An argument named "bogus" is not expected here.', text: 'portico.hcl:9:7 Unsupported argument' }]
      : [];
  return {
    id: 'i1:2',
    trigger: 'file',
    startedAt: new Date().toISOString(),
    durationMs: 3,
    result,
    diagnostics,
    diff: null,
    error: result === 'failed' ? 'listen EADDRINUSE 0.0.0.0:8080' : null,
    sources: [{ path: '/etc/portico/portico.hcl', sha256: 'ab' }],
    ...overrides,
  };
}

/** `config.status` with `last` as the last reload. */
export function sampleConfigStatus(last: ReloadRecord | null): ConfigStatus {
  return { files: [{ path: '/etc/portico/portico.hcl', sha256: 'ab' }], appliedAt: new Date().toISOString(), last, watching: ['/etc/portico/portico.hcl'] };
}

export class FakeSource implements ControlSource {
  readonly endpoints = controlEndpoints('http://127.0.0.1:9901');
  observers = new Set<EventObserver>();
  links = new Set<(state: LinkState) => void>();
  fromEventIds: Array<string | null> = [];
  statusReads = 0;
  /** What `config.status` answers; null: the gateway does not run there (the API's PRECONDITION_FAILED). */
  configStatus: ConfigStatus | null = null;
  configReads = 0;
  constructor(public status: SystemStatus = sampleStatus()) {}
  async fetchStatus(): Promise<SystemStatus> {
    this.statusReads += 1;
    return structuredClone(this.status);
  }
  async fetchConfigStatus(): Promise<ConfigStatus> {
    this.configReads += 1;
    if (!this.configStatus) throw Object.assign(new Error('config does not run in this daemon process'), { data: { code: 'PRECONDITION_FAILED', httpStatus: 412 } });
    return structuredClone(this.configStatus);
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
