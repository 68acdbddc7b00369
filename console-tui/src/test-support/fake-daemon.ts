// A control server for tests: the real appRouter behind the documented auth rules
// (HTTP 401 for a wrong bearer token, UNAUTHORIZED + close over WebSocket).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TRPCError } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { applyWSSHandler } from '@trpc/server/adapters/ws';
import { WebSocketServer } from 'ws';
import { appRouter } from '../../../daemon/src/control/router.js';
import { EventBus } from '../../../daemon/src/control/event-bus.js';
import type { ComponentStatus, SystemStatus } from '../../../daemon/src/control/client-types.js';

export interface FakeDaemon {
  url: string;
  port: number;
  token: string;
  bus: EventBus;
  components: ComponentStatus[];
  status(): SystemStatus;
  setComponent(name: string, state: ComponentStatus['state'], detail?: string | null): void;
  close(): Promise<void>;
}

export async function startFakeDaemon({ token = 'test-token', port = 0, bootId = 'boot-a' } = {}): Promise<FakeDaemon> {
  const bus = new EventBus(bootId);
  const startedAt = new Date(Date.now() - 65_000);
  const components: ComponentStatus[] = [
    { name: 'store', state: 'running', since: startedAt.toISOString(), detail: 'sqlite data/portico.db' },
    { name: 'control', state: 'running', since: startedAt.toISOString(), detail: '127.0.0.1' },
    { name: 'gateway', state: 'starting', since: new Date().toISOString(), detail: null },
  ];
  const status = (): SystemStatus => ({
    version: '0.1.0',
    mode: 'all',
    pid: 4242,
    startedAt: startedAt.toISOString(),
    uptimeSeconds: Math.floor((Date.now() - startedAt.getTime()) / 1000),
    bootId,
    store: { kind: 'sqlite', location: 'data/portico.db', schemaVersion: 1 },
    components: components.map((c) => ({ ...c })),
  });
  const services = { status: async () => status(), events: bus };

  const trpcHandler = createHTTPHandler({ router: appRouter, basePath: '/trpc/', createContext: () => ({ services }) });
  const server: Server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    trpcHandler(req, res);
  });
  const wss = new WebSocketServer({ server, path: '/trpc' });
  applyWSSHandler({
    wss,
    router: appRouter,
    createContext: ({ info }) => {
      if (info.connectionParams?.['token'] !== token) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'bad token' });
      return { services };
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actualPort = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    token,
    bus,
    components,
    status,
    setComponent(name, state, detail = null) {
      const component: ComponentStatus = { name, state, since: new Date().toISOString(), detail };
      const i = components.findIndex((c) => c.name === name);
      if (i >= 0) components[i] = component;
      else components.push(component);
      bus.publish({ type: 'component.state', message: `${name} ${state}`, component });
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
