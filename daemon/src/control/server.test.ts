import { createTRPCClient, createWSClient, httpBatchLink, splitLink, wsLink } from '@trpc/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { DaemonEvent, SystemStatus } from './client-types.js';
import { EventBus } from './event-bus.js';
import { appRouter, type AppRouter } from '../main/app-router.js';
import { ControlServices } from './trpc.js';
import { startControlServer, type ControlServer } from './server.js';

const TOKEN = 'test-token-0123456789abcdef';

function fakeStatus(bootId: string): SystemStatus {
  return {
    version: '0.0.0',
    mode: 'all',
    pid: 1,
    startedAt: new Date(0).toISOString(),
    uptimeSeconds: 5,
    bootId,
    lastEventId: `${bootId}:0`,
    store: { kind: 'sqlite', location: '/tmp/x.db', schemaVersion: 1 },
    components: [],
  };
}

function client(server: ControlServer, token: string) {
  const ws = createWSClient({
    url: server.url.replace('http', 'ws') + '/trpc',
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
    connectionParams: () => ({ token }),
    retryDelayMs: () => 50,
  });
  const trpc = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: wsLink({ client: ws }),
        false: httpBatchLink({ url: `${server.url}/trpc`, headers: { Authorization: `Bearer ${token}` } }),
      }),
    ],
  });
  return { trpc, ws };
}

describe('control server', () => {
  let bus: EventBus;
  let server: ControlServer;

  beforeEach(async () => {
    bus = new EventBus('boot');
    server = await startControlServer({ host: '127.0.0.1', port: 0, token: TOKEN, services: new ControlServices(async () => fakeStatus('boot'), bus), router: appRouter });
  });
  afterEach(async () => {
    await server.close();
  });

  it('answers an authorized query', async () => {
    const { trpc, ws } = client(server, TOKEN);
    expect((await trpc.system.status.query()).bootId).toBe('boot');
    ws.close();
  });

  it('gives 401 and nothing else without the right token', async () => {
    const attempts: Array<Record<string, string>> = [{}, { Authorization: 'Bearer nope' }, { Authorization: `Basic ${TOKEN}` }, { Authorization: `Bearer ${TOKEN}x` }];
    for (const headers of attempts) {
      const res = await fetch(`${server.url}/trpc/system.status`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.text()).not.toContain('bootId');
    }
  });

  it('refuses a WebSocket with a wrong token and closes it', async () => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/trpc?connectionParams=1`);
    await new Promise((r) => socket.once('open', r));
    socket.send(JSON.stringify({ method: 'connectionParams', data: { token: 'wrong' } }));
    socket.send(JSON.stringify({ id: 1, method: 'subscription', params: { path: 'system.events', input: {} } }));
    const messages: string[] = [];
    socket.on('message', (m: Buffer) => messages.push(m.toString()));
    await new Promise((r) => socket.once('close', r));
    expect(messages.join()).toContain('UNAUTHORIZED');
    expect(messages.join()).not.toContain('"type":"data"');
  });

  it('streams tracked events and resumes after the last one a client saw', async () => {
    const { trpc, ws } = client(server, TOKEN);
    const first: DaemonEvent[] = [];
    const sub = trpc.system.events.subscribe(undefined, { onData: (e) => first.push(e.data) });
    await new Promise((r) => setTimeout(r, 100));
    bus.publish({ type: 'log', message: 'one' });
    bus.publish({ type: 'log', message: 'two' });
    await expect.poll(() => first.length).toBe(2);
    sub.unsubscribe();
    bus.publish({ type: 'log', message: 'three (missed while away)' });

    const resumed: string[] = [];
    const sub2 = trpc.system.events.subscribe({ lastEventId: first[1]!.id }, { onData: (e) => resumed.push(e.data.message) });
    await expect.poll(() => resumed).toEqual(['three (missed while away)']);
    bus.publish({ type: 'log', message: 'four' });
    await expect.poll(() => resumed).toEqual(['three (missed while away)', 'four']);
    sub2.unsubscribe();
    ws.close();
  });

  it('tells WebSocket clients to reconnect when it closes', async () => {
    const { trpc, ws } = client(server, TOKEN);
    const states: string[] = [];
    const sub = trpc.system.events.subscribe(undefined, { onData: () => {}, onConnectionStateChange: (s) => states.push(s.state) });
    await expect.poll(() => states.includes('pending')).toBe(true);
    await server.close();
    await expect.poll(() => states.includes('connecting')).toBe(true);
    server = await startControlServer({ host: '127.0.0.1', port: 0, token: TOKEN, services: new ControlServices(async () => fakeStatus('b2'), bus), router: appRouter });
    sub.unsubscribe();
    ws.close();
  });
});
