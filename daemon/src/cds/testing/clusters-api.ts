// The daemon's real control server (HTTP + WebSocket, auth) serving the clusters router over a
// real CDS fixture, for the control API and console tests.
import type { TRPCClient } from '@trpc/client';
import { afterEachTest } from '../../testing/after-each-test.js';
import { EventBus } from '../../control/event-bus.js';
import type { AppRouter } from '../../main/app-router.js';
import { startAppApi } from '../../main/testing/control-server.js';
import { ControlServices } from '../../control/trpc.js';
import { CLUSTERS_SERVICE } from '../control-router.js';
import { clustersControl } from '../control-service.js';
import { type CdsFixture, startCds } from './cds-fixture.js';
import { fixedStatus } from '../../control/testing/fixed-status.js';

const TOKEN = 'test-token-cds-0123456789abcdef';
const cleanups: Array<() => Promise<void> | void> = [];
afterEachTest(async () => {
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
  const services = new ControlServices(status, bus).provide(
    CLUSTERS_SERVICE,
    clustersControl({ catalog: cds.catalog, registry: cds.registry, source: () => 'test config', address: () => cds.address }),
  );
  const { url, api, close } = await startAppApi(services, TOKEN);
  cleanups.push(close);
  return { url, token: TOKEN, api, cds };
}
