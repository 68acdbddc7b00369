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
});
