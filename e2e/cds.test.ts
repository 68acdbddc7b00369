// The cluster discovery service of a real daemon (`--mode cds`, which loads the gateway config
// itself): a real gRPC client over loopback, the HTTP form, edits of the config file, and the
// control API the consoles read.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlQuery, REPO_ROOT, startDaemon, type DaemonHandle } from './harness.js';

const backends = (extra: string): string => `definitions {
  backend "api" {
    origin = "https://10.0.0.10:8443"
    connect_timeout = "2s"
    beta_health {
      path = "/healthz"
    }
  }
  backend "web" {
    origin = "http://web.internal:8080"
  }
${extra}}
server {
  endpoint "/" {
    response {
      body = "ok"
    }
  }
}
`;

interface Response {
  version_info: string;
  nonce: string;
  resources: { type_url: string; value: Buffer }[];
}

const require = createRequire(join(REPO_ROOT, 'daemon', 'package.json'));
const definition = protoLoader.loadSync('proxy/api/v2/cds.proto', {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  includeDirs: [join(REPO_ROOT, 'protos'), dirname(require.resolve('protobufjs/package.json'))],
});
const pkg = grpc.loadPackageDefinition(definition) as unknown as { proxy: { api: { v2: { ClusterDiscoveryService: grpc.ServiceClientConstructor } } } };

/** Cluster.name is field 1: read it from each Any's bytes with a bare protobuf reader. */
function clusterNames(response: Response): string[] {
  return response.resources.map((r) => {
    const reader = protobuf.Reader.create(r.value);
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      if (tag >>> 3 === 1) return reader.string();
      reader.skipType(tag & 7);
    }
    return '';
  });
}

let dir: string;
let file: string;
let daemon: DaemonHandle;
let client: grpc.Client & Record<string, (...a: unknown[]) => unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portico-e2e-cds-'));
  file = join(dir, 'portico.hcl');
  writeFileSync(file, backends(''));
  daemon = await startDaemon({ args: ['--mode', 'cds', '-f', file] });
  client = new pkg.proxy.api.v2.ClusterDiscoveryService(daemon.cdsAddress, grpc.credentials.createInsecure()) as typeof client;
});

afterAll(async () => {
  client?.close();
  await daemon?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('cluster discovery in a running daemon', () => {
  it('streams every backend as a cluster, pushes one response per config change, and shows the client in the control API', async () => {
    const call = (client['StreamClusters'] as () => grpc.ClientDuplexStream<object, Response>).call(client);
    const responses: Response[] = [];
    call.on('data', (r: Response) => responses.push(r));
    call.on('error', () => {});
    try {
      call.write({ node: { id: 'e2e-proxy', cluster: 'e2e' } });
      await expect.poll(() => responses.length).toBe(1);
      const first = responses[0]!;
      expect(clusterNames(first).sort()).toEqual(['api', 'web']);
      call.write({ version_info: first.version_info, response_nonce: first.nonce });

      const token = daemon.token;
      await expect
        .poll(async () => ((await controlQuery(daemon, 'clusters.clients', token)).body as { result: { data: { nodeId: string; lastAck: { version: string } | null }[] } }).result.data)
        .toEqual([expect.objectContaining({ nodeId: 'e2e-proxy', kind: 'sotw', lastAck: expect.objectContaining({ version: first.version_info }) })]);
      const list = (await controlQuery(daemon, 'clusters.list', token)).body as { result: { data: { version: string; clusters: { name: string; type: string; healthStatus: string }[] } } };
      expect(list.result.data.version).toBe(first.version_info);
      expect(list.result.data.clusters.map((c) => [c.name, c.type, c.healthStatus])).toEqual([
        ['api', 'STATIC', 'UNKNOWN'],
        ['web', 'STRICT_DNS', 'UNKNOWN'],
      ]);

      // Saving the same content again is no change; adding a backend is exactly one push.
      writeFileSync(file, backends(''));
      writeFileSync(file, backends('  backend "cache" {\n    origin = "http://10.0.0.20:6379"\n  }\n'));
      await expect.poll(() => responses.length).toBe(2);
      expect(clusterNames(responses[1]!).sort()).toEqual(['api', 'cache', 'web']);
      expect(responses[1]!.version_info).not.toBe(first.version_info);
      call.write({ version_info: responses[1]!.version_info, response_nonce: responses[1]!.nonce });

      // A broken save keeps the clusters; the error reaches the log with its position.
      writeFileSync(file, 'definitions {\n  backend "x" {\n');
      await expect.poll(() => daemon.logs()).toMatch(/cluster discovery: configuration not loaded, still serving version [0-9a-f]{16}: .*portico\.hcl:\d+,\d+-\d+: Unclosed configuration block/);
      writeFileSync(file, backends(''));
      await expect.poll(() => responses.length).toBe(3);
      expect(clusterNames(responses[2]!).sort()).toEqual(['api', 'web']);
      expect(responses[2]!.version_info).toBe(first.version_info);
    } finally {
      call.cancel();
    }
  });

  it('serves the HTTP form on the services listener: 200 with proto3 JSON, 304 when current, 400, 405', async () => {
    const url = `${daemon.servicesUrl}/v2/discovery:clusters`;
    const res = await fetch(url, { method: 'POST', body: JSON.stringify({ node: { id: 'rest-poller' }, resource_names: ['api'] }) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { version_info: string; resources: Record<string, unknown>[] };
    expect(body.resources).toEqual([
      expect.objectContaining({ '@type': 'type.googleapis.com/proxy.api.v2.Cluster', name: 'api', type: 'STATIC', connect_timeout: '2s', health_checks: [expect.objectContaining({ interval: expect.stringMatching(/s$/) })] }),
    ]);
    expect((await fetch(url, { method: 'POST', body: JSON.stringify({ versionInfo: body.version_info, resourceNames: ['api'] }) })).status).toBe(304);
    const bad = await fetch(url, { method: 'POST', body: '{"resource_names": "api"}' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('resource_names: expected a JSON array');
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
