// The daemon's real control server (HTTP + WebSocket, auth) serving the clusters router over a
// real CDS fixture, for the control API and console tests.
import { createTRPCClient, createWSClient, httpBatchLink, splitLink, wsLink, type TRPCClient } from '@trpc/client';
import { afterEach } from 'vitest';
import WebSocket from 'ws';
import { EventBus } from '../control/event-bus.js';
import type { AppRouter } from '../control/router.js';
import { startControlServer } from '../control/server.js';
import type { ControlServices } from '../control/trpc.js';
import { clustersControl } from './control-service.js';
import { type CdsFixture, startCds } from './test-kit.js';
import { fixedStatus } from '../control/testing/fixed-status.js';

const TOKEN = 'test-token-cds-0123456789abcdef';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export interface ClustersApiFixture {
  url: string;
  token: string;
  api: TRPCClient<AppRouter>;
  cds: CdsFixture;
}

export async function startClustersApi(): Promise<ClustersApiFixture> {
  const cds = await startCds();
  const bus = new EventBus('boot');
  const status = fixedStatus(bus, 'cds');
  const services: ControlServices = {
    status,
    events: bus,
    clusters: clustersControl({ catalog: cds.catalog, registry: cds.registry, source: () => 'test config', address: () => cds.address }),
  };
  const server = await startControlServer({ host: '127.0.0.1', port: 0, token: TOKEN, services });
  cleanups.push(() => server.close());
  const ws = createWSClient({ url: `${server.url.replace('http', 'ws')}/trpc`, WebSocket: WebSocket as unknown as typeof globalThis.WebSocket, connectionParams: () => ({ token: TOKEN }), retryDelayMs: () => 50 });
  cleanups.push(() => ws.close());
  const api = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: wsLink({ client: ws }),
        false: httpBatchLink({ url: `${server.url}/trpc`, headers: { Authorization: `Bearer ${TOKEN}` } }),
      }),
    ],
  });
  return { url: server.url, token: TOKEN, api, cds };
}
