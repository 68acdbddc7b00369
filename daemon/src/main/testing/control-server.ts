import { EventBus } from '../../control/event-bus.js';
import { ControlServices } from '../../control/trpc.js';
import { startControlServer, type ControlServer, type ControlServerOptions } from '../../control/server.js';
import { createTRPCClient, createWSClient, httpBatchLink, splitLink, wsLink } from '@trpc/client';
import WebSocket from 'ws';
import { appRouter, type AppRouter } from '../app-router.js';

/** The daemon's control server with its app router, for tests that provide only some areas' services. */
export function startAppControlServer(options: Omit<ControlServerOptions, 'router'>): Promise<ControlServer> {
  return startControlServer({ ...options, router: appRouter });
}

/** A server-side caller of the app router over `services`, for tests of one area's procedures without HTTP. */
export function appCaller(services: ControlServices): ReturnType<typeof appRouter.createCaller> {
  return appRouter.createCaller({ services });
}

/** Services with a placeholder status, to which a test provides the areas it needs. */
export function testServices(events: EventBus = new EventBus('test')): ControlServices {
  return new ControlServices(async () => ({}) as never, events);
}

export interface AppApi {
  url: string;
  /** HTTP for queries and mutations, WebSocket for subscriptions, as the consoles connect. */
  api: ReturnType<typeof createTRPCClient<AppRouter>>;
  close(): Promise<void>;
}

/** The app control server on a free loopback port over `services`, with a client of it. */
export async function startAppApi(services: ControlServices, token: string): Promise<AppApi> {
  const server = await startAppControlServer({ host: '127.0.0.1', port: 0, token, services });
  const ws = createWSClient({ url: `${server.url.replace('http', 'ws')}/trpc`, WebSocket: WebSocket as unknown as typeof globalThis.WebSocket, connectionParams: () => ({ token }), retryDelayMs: () => 50 });
  const api = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: wsLink({ client: ws }),
        false: httpBatchLink({ url: `${server.url}/trpc`, headers: { Authorization: `Bearer ${token}` } }),
      }),
    ],
  });
  return {
    url: server.url,
    api,
    async close() {
      await ws.close();
      await server.close();
    },
  };
}
