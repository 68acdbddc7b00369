// The cluster discovery service in the default mode: the gateway area is in the process, so
// clusters follow the live gateway config (config/portico.hcl) and the health of its backends.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlQuery, REPO_ROOT, startDaemon, type DaemonHandle } from './harness.js';

const require = createRequire(join(REPO_ROOT, 'daemon', 'package.json'));
const definition = protoLoader.loadSync('proxy/api/v2/cds.proto', { keepCase: true, longs: String, enums: String, defaults: true, includeDirs: [join(REPO_ROOT, 'protos'), dirname(require.resolve('protobufjs/package.json'))] });
const pkg = grpc.loadPackageDefinition(definition) as unknown as { proxy: { api: { v2: { ClusterDiscoveryService: grpc.ServiceClientConstructor } } } };

interface ClustersList {
  version: string;
  clusters: { name: string; type: string; healthStatus: string; endpoints: { address: string; port: number }[] }[];
}

let daemon: DaemonHandle;
beforeAll(async () => {
  daemon = await startDaemon();
});
afterAll(async () => {
  await daemon?.dispose();
});

describe('cluster discovery with the gateway in the process', () => {
  it('publishes the default config backend with its live health, and a delta stream sees the same version', async () => {
    const list = async (): Promise<ClustersList> => ((await controlQuery(daemon, 'clusters.list', daemon.token)).body as { result: { data: ClustersList } }).result.data;
    // The services backend's beta_health checks /internal/healthz: UNKNOWN until the first check, then HEALTHY.
    await expect.poll(async () => (await list()).clusters.find((c) => c.name === 'services')?.healthStatus).toBe('HEALTHY');
    const services = (await list()).clusters.find((c) => c.name === 'services')!;
    expect(services.type).toBe('STATIC');
    expect(`http://127.0.0.1:${services.endpoints[0]!.port}`).toBe(daemon.servicesUrl);

    const client = new pkg.proxy.api.v2.ClusterDiscoveryService(daemon.cdsAddress, grpc.credentials.createInsecure());
    const call = (client as unknown as { DeltaClusters: () => grpc.ClientDuplexStream<object, { system_version_info: string; resources: { name: string }[] }> }).DeltaClusters();
    const responses: { system_version_info: string; resources: { name: string }[] }[] = [];
    call.on('data', (r) => responses.push(r));
    call.on('error', () => {});
    try {
      call.write({ node: { id: 'e2e-delta' }, resource_names_subscribe: ['services'] });
      await expect.poll(() => responses.length).toBeGreaterThanOrEqual(1);
      expect(responses[0]!.resources.map((r) => r.name)).toEqual(['services']);
      expect(responses[0]!.system_version_info).toBe((await list()).version);
    } finally {
      call.cancel();
      client.close();
    }
  });
});
