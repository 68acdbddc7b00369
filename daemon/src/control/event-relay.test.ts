import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Logger } from '../core/logger.js';
import { migrate } from '../store/migrate.js';
import { CORE_MIGRATIONS } from '../store/schema.js';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import type { Store } from '../store/types.js';
import type { DaemonEvent, DaemonMode } from './client-types.js';
import { EventBus } from './event-bus.js';
import { EventRelay } from './event-relay.js';

const factories = await testDatabases();
const quiet = new Logger({ sink: { write: () => {} } });

interface Process {
  bus: EventBus;
  relay: EventRelay;
  seen: DaemonEvent[];
}

describe.each(factories.map((f) => [f.kind, f] as const))('events across daemon processes on %s', (_kind, factory) => {
  let database: TestDatabase;
  const stores: Store[] = [];
  const processes: Process[] = [];
  const streams: AbortController[] = [];

  /** A daemon process as far as events go: its bus and relay on its own store handle. */
  async function daemonProcess(bootId: string, mode: DaemonMode, pid: number, batchMs = 5, logger = quiet): Promise<Process> {
    const store = await database.open();
    stores.push(store);
    await migrate(store, [{ area: 'core', migrations: CORE_MIGRATIONS }]);
    const bus = new EventBus(bootId);
    const seen: DaemonEvent[] = [];
    const abort = new AbortController();
    streams.push(abort);
    void (async () => {
      for await (const e of bus.stream(null, abort.signal)) seen.push(e);
    })();
    const relay = new EventRelay({ events: bus, store: () => store, origin: { bootId, mode, pid, host: 'host-1' }, logger, pollMs: 50, batchMs });
    await relay.start();
    const p: Process = { bus, relay, seen };
    processes.push(p);
    return p;
  }

  beforeEach(() => {
    database = factory();
  });
  afterEach(async () => {
    for (const p of processes.splice(0)) await p.relay.stop();
    for (const a of streams.splice(0)) a.abort();
    for (const s of stores.splice(0)) await s.close();
    await database.destroy();
  });

  it("shows a worker process's job, delivery and warning events on the control process, tagged with their origin", async () => {
    const control = await daemonProcess('control', 'gateway', 100);
    const worker = await daemonProcess('worker', 'callback-worker', 200);
    worker.bus.publish({ type: 'job.state', message: 'job j-1 PARSE_AND_INGEST SUCCEEDED' });
    worker.bus.publish({
      type: 'log',
      level: 'warn',
      message: 'callback-worker: callback_attempt_failed',
      details: { id: 'd-1', job_id: 'j-1', attempts: '2/5', error: 'receiver answered HTTP 503', target: 'https://hooks.example.com/h' },
    });
    worker.bus.publish({ type: 'delivery.state', level: 'warn', message: 'delivery d-1 of job j-1 DEAD (attempt 5)' });
    await expect.poll(() => control.seen.map((e) => e.message)).toEqual(['job j-1 PARSE_AND_INGEST SUCCEEDED', 'callback-worker: callback_attempt_failed', 'delivery d-1 of job j-1 DEAD (attempt 5)']);
    const warning = control.seen[1]!;
    expect(warning).toMatchObject({
      id: 'control:2',
      type: 'log',
      level: 'warn',
      origin: { bootId: 'worker', mode: 'callback-worker', pid: 200, host: 'host-1' },
      details: { id: 'd-1', job_id: 'j-1', attempts: '2/5', error: 'receiver answered HTTP 503', target: 'https://hooks.example.com/h' },
    });
    // The time is the worker's, not the moment it arrived.
    expect(warning.at).toBe(worker.seen[1]!.at);
  });

  it('passes events both ways without sending any back to the process that made them', async () => {
    const one = await daemonProcess('one', 'all', 1);
    const two = await daemonProcess('two', 'all', 2);
    one.bus.publish({ type: 'delivery.state', message: 'reset 3 deliveries by ada' });
    two.bus.publish({ type: 'job.state', message: 'job j-2 RUNNING' });
    await expect.poll(() => one.seen.map((e) => e.message)).toEqual(['reset 3 deliveries by ada', 'job j-2 RUNNING']);
    await expect.poll(() => two.seen.map((e) => e.message)).toEqual(['job j-2 RUNNING', 'reset 3 deliveries by ada']);
    // A third event round-trips to prove the first ones had their chance to echo back.
    one.bus.publish({ type: 'log', level: 'error', message: 'last' });
    await expect.poll(() => two.seen.at(-1)?.message).toBe('last');
    expect(one.seen.map((e) => e.message)).toEqual(['reset 3 deliveries by ada', 'job j-2 RUNNING', 'last']);
    expect(two.seen.filter((e) => e.origin).map((e) => e.origin!.bootId)).toEqual(['one', 'one']);
  });

  it("keeps a process's component states to itself: each status view shows its own components", async () => {
    const control = await daemonProcess('control', 'gateway', 100);
    const worker = await daemonProcess('worker', 'ingest-worker', 200);
    worker.bus.publish({ type: 'component.state', message: 'ingest-worker running', component: { name: 'ingest-worker', state: 'running', since: new Date().toISOString(), detail: null } });
    worker.bus.publish({ type: 'daemon.started', message: 'portico started in mode ingest-worker' });
    await expect.poll(() => control.seen.map((e) => e.type)).toEqual(['daemon.started']);
  });

  it('sends what is still queued when it stops', async () => {
    const control = await daemonProcess('control', 'all', 1);
    // Batches wait a minute here, so only the stop can have sent it.
    const worker = await daemonProcess('worker', 'callback-worker', 2, 60_000);
    worker.bus.publish({ type: 'daemon.stopping', message: 'stopping on SIGTERM' });
    await worker.relay.stop();
    processes.splice(processes.indexOf(worker), 1);
    await expect.poll(() => control.seen.map((e) => e.message)).toEqual(['stopping on SIGTERM']);
  });

  it("warns once when passing on another process's event throws, and still passes on the next ones", async () => {
    const lines: string[] = [];
    const control = await daemonProcess('control', 'all', 1, 5, new Logger({ format: 'json', level: 'warn', sink: { write: (line) => lines.push(line) } }));
    const worker = await daemonProcess('worker', 'callback-worker', 2);
    const relay = control.bus.relay.bind(control.bus);
    control.bus.relay = (input) => {
      if (input.message.startsWith('bad')) throw new Error('a subscriber failed');
      return relay(input);
    };
    worker.bus.publish({ type: 'job.state', message: 'bad 1' });
    worker.bus.publish({ type: 'job.state', message: 'bad 2' });
    worker.bus.publish({ type: 'job.state', message: 'good' });
    await expect.poll(() => control.seen.map((e) => e.message)).toContain('good');
    const warnings = lines.map((l) => JSON.parse(l) as { message: string; error?: string }).filter((l) => l.message.includes('could not pass on an event'));
    expect(warnings).toEqual([expect.objectContaining({ error: 'a subscriber failed' })]);
  });

  it('says how it carries events, for the status view', async () => {
    const p = await daemonProcess('x', 'all', 1);
    expect(p.relay.describe()).toMatch(/^(SQLite: polls every 50 ms|PostgreSQL: LISTEN portico_events_[0-9a-f]{16})$/);
  });
});
