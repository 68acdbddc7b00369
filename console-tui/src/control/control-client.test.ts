import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonEvent } from '@portico/daemon/control';
import { startTestDaemon, type TestDaemon } from '../testing/test-daemon.js';
import { createControlClient } from './control-client.js';
import type { LinkState } from './control-source.js';

let daemon: TestDaemon | undefined;
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
});

describe('control client', () => {
  it('reads system.status over HTTP with the bearer token', async () => {
    daemon = await startTestDaemon();
    const client = createControlClient({ url: daemon.url, token: daemon.token });
    const status = await client.fetchStatus();
    expect(status.components.map((c) => c.name)).toEqual(['store', 'control', 'gateway']);
    await client.close();
  });

  it('reads config.status over HTTP, refused as failed (not unreachable) where the gateway does not run', async () => {
    daemon = await startTestDaemon();
    const client = createControlClient({ url: daemon.url, token: daemon.token });
    const error = await client.fetchConfigStatus().catch((e: unknown) => e);
    const { daemonRefused, toControlProblem } = await import('./control-problem.js');
    expect(toControlProblem(error)).toMatchObject({ code: 'failed', reason: expect.stringMatching(/^HTTP 412: config does not run in this daemon process/) });
    expect(daemonRefused(error)).toBe(true);
    await client.close();
  });

  it('reports a wrong token as unauthorized', async () => {
    daemon = await startTestDaemon();
    const client = createControlClient({ url: daemon.url, token: 'wrong' });
    const error = await client.fetchStatus().catch((e: unknown) => e);
    const { daemonRefused, toControlProblem } = await import('./control-problem.js');
    expect(toControlProblem(error)).toEqual({ code: 'unauthorized', reason: 'HTTP 401' });
    expect(daemonRefused(error)).toBe(false);
  });

  it('streams events and reports the link state', async () => {
    daemon = await startTestDaemon();
    const client = createControlClient({ url: daemon.url, token: daemon.token });
    const states: string[] = [];
    client.watchLink((s: LinkState) => states.push(s.kind));
    const seen: DaemonEvent[] = [];
    client.subscribeEvents(null, { onEvent: (e) => seen.push(e), onError: () => {} });
    await expect.poll(() => states.at(-1)).toBe('open');
    await new Promise((r) => setTimeout(r, 50));
    daemon.setComponent('gateway', 'running', ':8080');
    await expect.poll(() => seen.map((e) => e.message)).toEqual(['gateway running']);
    await client.close();
  });

  it('says the link is refused when the WebSocket token is wrong', async () => {
    daemon = await startTestDaemon();
    const client = createControlClient({ url: daemon.url, token: 'wrong' });
    const states: LinkState[] = [];
    client.watchLink((s) => states.push(s));
    client.subscribeEvents(null, { onEvent: () => {}, onError: () => {} });
    await expect.poll(() => states.at(-1)?.kind).toBe('refused');
    await client.close();
  });

  it("says the link is refused from the server's answer to the connection itself, with no call on it", async () => {
    daemon = await startTestDaemon();
    const client = createControlClient({ url: daemon.url, token: 'wrong' });
    const states: LinkState[] = [];
    client.watchLink((s) => states.push(s));
    // Opens the socket without a call: the server's refusal is an error for no call, then a close.
    void client.subscriptions;
    await expect.poll(() => states.at(-1)?.kind, { timeout: 10_000 }).toBe('refused');
    expect(states.at(-1)).toMatchObject({ problem: { code: 'unauthorized' } });
    await client.close();
  });
});
