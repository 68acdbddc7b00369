import { describe, expect, it } from 'vitest';
import { EventBus } from './event-bus.js';

describe('EventBus', () => {
  it('resumes after the last event id a client saw', async () => {
    const bus = new EventBus('boot1');
    bus.publish({ type: 'log', message: 'one' });
    const second = bus.publish({ type: 'log', message: 'two' });
    bus.publish({ type: 'log', message: 'three' });
    expect(bus.since(second.id).map((e) => e.message)).toEqual(['three']);
  });

  it('replays the buffer for an id from another boot', () => {
    const bus = new EventBus('boot2');
    bus.publish({ type: 'log', message: 'a' });
    expect(bus.since('boot1:7').map((e) => e.message)).toEqual(['a']);
  });

  it('streams backlog then live events without duplicates', async () => {
    const bus = new EventBus('b');
    const first = bus.publish({ type: 'log', message: '1' });
    bus.publish({ type: 'log', message: '2' });
    const abort = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const e of bus.stream(first.id, abort.signal)) {
        seen.push(e.message);
        if (seen.length === 2) abort.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 10));
    bus.publish({ type: 'log', message: '3' });
    await done;
    expect(seen).toEqual(['2', '3']);
  });

  it('starts a new client with the newest backlog events, then live ones', async () => {
    const bus = new EventBus('d');
    for (const m of ['a', 'b', 'c']) bus.publish({ type: 'log', message: m });
    const abort = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const e of bus.stream(null, abort.signal, 2)) {
        seen.push(e.message);
        if (seen.length === 3) abort.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 10));
    bus.publish({ type: 'log', message: 'd' });
    await done;
    expect(seen).toEqual(['b', 'c', 'd']);
  });

  it('drops the oldest events past its capacity', () => {
    const bus = new EventBus('c', 2);
    for (const m of ['a', 'b', 'c']) bus.publish({ type: 'log', message: m });
    expect(bus.since('other:1').map((e) => e.message)).toEqual(['b', 'c']);
  });

  it('keeps the details of an event and leaves an empty set out', () => {
    const bus = new EventBus('e');
    const warned = bus.publish({ type: 'log', level: 'warn', message: 'callback-worker: callback_attempt_failed', details: { id: 'd-1', job_id: 'j-1', attempts: '2/5', error: 'receiver answered HTTP 503' } });
    expect(warned.details).toEqual({ id: 'd-1', job_id: 'j-1', attempts: '2/5', error: 'receiver answered HTTP 503' });
    expect(bus.publish({ type: 'log', message: 'plain', details: {} })).not.toHaveProperty('details');
  });

  it("gives a relayed event this bus's next id, keeps its time and origin, and tells onLocal listeners only of its own", async () => {
    const bus = new EventBus('local');
    const local: string[] = [];
    bus.onLocal((e) => local.push(e.message));
    const mine = bus.publish({ type: 'job.state', message: 'job j-1 RUNNING' });
    const origin = { bootId: 'other', mode: 'callback-worker' as const, pid: 7, host: 'h' };
    const relayed = bus.relay({ type: 'delivery.state', at: '2026-01-01T10:00:00.000Z', level: 'warn', message: 'delivery d-1 DEAD', origin, details: { delivery: 'd-1' } });
    expect(relayed).toEqual({ id: 'local:2', type: 'delivery.state', at: '2026-01-01T10:00:00.000Z', level: 'warn', message: 'delivery d-1 DEAD', origin, details: { delivery: 'd-1' } });
    expect(local).toEqual(['job j-1 RUNNING']);
    // A console resuming after the local event gets the relayed one, like any other.
    expect(bus.since(mine.id).map((e) => e.message)).toEqual(['delivery d-1 DEAD']);
  });
});
