import { describe, expect, it } from 'vitest';
import { ComponentHost, type Component } from './component.js';
import { StartupError } from './errors.js';
import { Logger } from './logger.js';

const quiet = new Logger({ sink: { write: () => {} } });

function recorder(log: string[], name: string, opts: { failStart?: boolean; stopMs?: number } = {}): Component {
  return {
    name,
    async start() {
      if (opts.failStart) throw new Error('port 9901 in use');
      log.push(`start ${name}`);
    },
    async stop() {
      if (opts.stopMs) await new Promise((r) => setTimeout(r, opts.stopMs));
      log.push(`stop ${name}`);
    },
  };
}

describe('ComponentHost', () => {
  it('starts in order and stops in reverse order', async () => {
    const log: string[] = [];
    const host = new ComponentHost(quiet);
    for (const n of ['store', 'control', 'gateway']) host.register(recorder(log, n));
    await host.startAll();
    expect(host.statuses().map((s) => s.state)).toEqual(['running', 'running', 'running']);
    expect(await host.stopAll(1000)).toBe(true);
    expect(log).toEqual(['start store', 'start control', 'start gateway', 'stop gateway', 'stop control', 'stop store']);
  });

  it('starts no further component once a stop is asked for, and stops only those that run', async () => {
    const log: string[] = [];
    const host = new ComponentHost(quiet);
    for (const n of ['store', 'control', 'gateway']) host.register(recorder(log, n));
    expect(await host.startAll(() => log.includes('start store'))).toBe(false);
    expect(host.statuses().map((s) => s.state)).toEqual(['running', 'registered', 'registered']);
    expect(await host.stopAll(1000)).toBe(true);
    expect(log).toEqual(['start store', 'stop store']);
  });

  it('registers a component before a named one so it starts earlier and stops later', async () => {
    const log: string[] = [];
    const host = new ComponentHost(quiet);
    for (const n of ['store', 'gateway']) host.register(recorder(log, n));
    host.registerBefore(recorder(log, 'services'), 'gateway');
    host.registerBefore(recorder(log, 'control'), 'absent');
    await host.startAll();
    await host.stopAll(1000);
    expect(log).toEqual(['start store', 'start services', 'start gateway', 'start control', 'stop control', 'stop gateway', 'stop services', 'stop store']);
  });

  it('tells running components that shutdown began, before stopping any', async () => {
    const log: string[] = [];
    const host = new ComponentHost(quiet);
    host.register({ ...recorder(log, 'gateway'), drain: () => log.push('drain gateway') });
    host.register(recorder(log, 'store'));
    host.register({ ...recorder(log, 'broken'), drain: () => { throw new Error('boom'); } });
    host.drainAll();
    expect(log).toEqual([]);
    await host.startAll();
    host.drainAll();
    expect(log).toEqual(['start gateway', 'start store', 'start broken', 'drain gateway']);
  });

  it('names the component that failed to start, stops it and stops the others', async () => {
    const log: string[] = [];
    const host = new ComponentHost(quiet);
    host.register(recorder(log, 'store'));
    host.register(recorder(log, 'control', { failStart: true }));
    host.register(recorder(log, 'gateway'));
    const error = await host.startAll().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as StartupError).message).toBe('control: port 9901 in use');
    // The failed one first: what it began before failing is released too.
    expect(log).toEqual(['start store', 'stop control', 'stop store']);
    expect(host.statuses().map((s) => `${s.name}=${s.state}`)).toEqual(['store=stopped', 'control=failed', 'gateway=registered']);
  });

  it('reports a stop that outlives the timeout', async () => {
    const host = new ComponentHost(quiet);
    host.register(recorder([], 'slow', { stopMs: 200 }));
    await host.startAll();
    expect(await host.stopAll(20)).toBe(false);
    expect(host.statuses()[0]?.state).toBe('failed');
  });

  it('tells listeners about every state change', async () => {
    const host = new ComponentHost(quiet);
    const seen: string[] = [];
    host.onStateChange((s) => seen.push(`${s.name}:${s.state}`));
    host.register(recorder([], 'store'));
    await host.startAll();
    await host.stopAll(100);
    expect(seen).toEqual(['store:starting', 'store:running', 'store:stopping', 'store:stopped']);
  });

  it('tells listeners when a running component describes itself anew, keeping its state and since', async () => {
    const host = new ComponentHost(quiet);
    let detail = 'http://[::]:8080 (2 processes)';
    host.register({ ...recorder([], 'gateway'), describe: () => detail });
    await host.startAll();
    const since = host.statuses()[0]!.since;
    const seen: string[] = [];
    host.onStateChange((s) => seen.push(`${s.state}:${s.detail}`));
    host.redescribe('gateway');
    detail = 'http://[::]:8080 (1 of 2 processes serving)';
    host.redescribe('gateway');
    host.redescribe('nothing-by-that-name');
    expect(seen).toEqual(['running:http://[::]:8080 (1 of 2 processes serving)']);
    expect(host.statuses()[0]).toMatchObject({ state: 'running', since, detail });
    await host.stopAll(100);
    host.redescribe('gateway');
    expect(seen).toHaveLength(3);
  });
});
