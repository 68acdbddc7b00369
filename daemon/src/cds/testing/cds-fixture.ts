// Test support for the cluster discovery tests: real config files loaded by the gateway's
// loader, a real grpc-js server on a free loopback port, and real grpc-js clients built
// with @grpc/proto-loader from the same .proto files (a decoding path independent of ours).
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { afterEachTest } from '../../testing/after-each-test.js';
import { Logger } from '../../core/logger.js';
import { formatDiagnostic } from '../../hcl/index.js';
import type { BackendHealth, GatewayState, HealthChange, HealthMonitor } from '../../gateway/contracts.js';
import { loadGatewayConfig } from '../../gateway/config/load.js';
import type { GatewayConfig } from '../../gateway/config/model.js';
import { ClusterCatalog } from '../catalog.js';
import { ClientRegistry } from '../client-registry.js';
import { CdsGrpcServer } from '../grpc-server.js';
import { CDS_PROTO, loadCdsTypes, PROTOBUFJS_DIR, PROTOS_DIR } from '../proto-root.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEachTest(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export const quietLogger = (): Logger => new Logger({ level: 'error', sink: { write: () => {} } });

/** A gateway config with these backends (label -> attribute lines) and one trivial server. */
export function backendsHcl(backends: Record<string, string>): string {
  const defs = Object.entries(backends).map(([name, body]) => `  backend "${name}" {\n${body}\n  }`).join('\n');
  return `definitions {\n${defs}\n}\nserver {\n  endpoint "/" {\n    response {\n      body = "ok"\n    }\n  }\n}\n`;
}

/** A temporary config file; `write` replaces its content. */
export function configFile(initial: string): { path: string; write(content: string): void } {
  const dir = mkdtempSync(join(tmpdir(), 'portico-cds-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'portico.hcl');
  writeFileSync(path, initial);
  return { path, write: (content) => writeFileSync(path, content) };
}

/** Loads `hcl` with the gateway's real loader; fails the test with the diagnostics when invalid. */
export async function loadConfig(hcl: string): Promise<GatewayConfig> {
  const file = configFile(hcl);
  const result = await loadGatewayConfig([file.path], {});
  if (!result.config) throw new Error(`invalid test config:\n${result.diagnostics.map(formatDiagnostic).join('\n')}`);
  return result.config;
}

export interface CdsFixture {
  catalog: ClusterCatalog;
  registry: ClientRegistry;
  server: CdsGrpcServer;
  address: string;
  /** Loads `hcl` and publishes its backends (health `unknown`, or from `health`). */
  apply(hcl: string, health?: Readonly<Record<string, BackendHealth>>): Promise<boolean>;
}

export async function startCds(): Promise<CdsFixture> {
  const catalog = new ClusterCatalog(loadCdsTypes());
  const registry = new ClientRegistry();
  const server = new CdsGrpcServer(catalog, registry, quietLogger());
  await server.start({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => server.stop());
  return {
    catalog,
    registry,
    server,
    address: `127.0.0.1:${server.port}`,
    apply: async (hcl, health) => catalog.updateFrom(await loadConfig(hcl), health ?? null),
  };
}

// ---------------------------------------------------------------- clients

/** Decoded with proto-loader's options: enums as names, longs as strings, oneof names set. */
export interface ClientDiscoveryResponse {
  version_info: string;
  resources: { type_url: string; value: Buffer }[];
  type_url: string;
  nonce: string;
}

export interface ClientDeltaResponse {
  system_version_info: string;
  resources: { name: string; version: string; resource: { type_url: string; value: Buffer } }[];
  removed_resources: string[];
  nonce: string;
  type_url: string;
}

type ClientCtor = grpc.ServiceClientConstructor;
let clientCtor: ClientCtor | null = null;

function serviceClient(): ClientCtor {
  if (clientCtor) return clientCtor;
  const definition = protoLoader.loadSync(CDS_PROTO, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [PROTOS_DIR, PROTOBUFJS_DIR] });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as { proxy: { api: { v2: { ClusterDiscoveryService: ClientCtor } } } };
  clientCtor = pkg.proxy.api.v2.ClusterDiscoveryService;
  return clientCtor;
}

export function cdsClient(address: string): grpc.Client & Record<string, (...args: unknown[]) => unknown> {
  const Ctor = serviceClient();
  const client = new Ctor(address, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': -1 });
  cleanups.push(() => client.close());
  return client as grpc.Client & Record<string, (...args: unknown[]) => unknown>;
}

/** An open stream recording every response; `send` writes a request. */
export class RecordedStream<Res> {
  readonly responses: Res[] = [];
  status: grpc.StatusObject | null = null;
  error: grpc.ServiceError | null = null;

  constructor(private readonly call: grpc.ClientDuplexStream<object, Res>) {
    call.on('data', (response: Res) => this.responses.push(response));
    call.on('status', (status: grpc.StatusObject) => (this.status = status));
    call.on('error', (error: grpc.ServiceError) => (this.error = error));
    cleanups.push(() => call.cancel());
  }

  send(request: object): void {
    this.call.write(request);
  }

  end(): void {
    this.call.end();
  }

  cancel(): void {
    this.call.cancel();
  }

  /** Waits for the response number `n` (1-based) and returns it. */
  async nth(n: number): Promise<Res> {
    await expect.poll(() => this.responses.length, { message: `waiting for response ${n}` }).toBeGreaterThanOrEqual(n);
    return this.responses[n - 1]!;
  }
}

export function openSotw(address: string): RecordedStream<ClientDiscoveryResponse> {
  const client = cdsClient(address);
  return new RecordedStream((client['StreamClusters'] as () => grpc.ClientDuplexStream<object, ClientDiscoveryResponse>).call(client));
}

export function openDelta(address: string): RecordedStream<ClientDeltaResponse> {
  const client = cdsClient(address);
  return new RecordedStream((client['DeltaClusters'] as () => grpc.ClientDuplexStream<object, ClientDeltaResponse>).call(client));
}

/** The cluster names of a response, decoding each Any with our Cluster type. */
export function clusterNames(resources: readonly { type_url: string; value: Buffer }[]): string[] {
  const { Cluster } = loadCdsTypes();
  return resources.map((r) => (Cluster.decode(r.value) as unknown as { name: string }).name);
}

export function decodeCluster(value: Uint8Array): Record<string, unknown> {
  const { Cluster } = loadCdsTypes();
  return Cluster.toObject(Cluster.decode(value), { enums: String, longs: String, defaults: false, oneofs: true }) as Record<string, unknown>;
}

// ---------------------------------------------------------------- a gateway state driven by the test

/**
 * A GatewayState whose config and health the test sets, as the gateway area publishes them:
 * `applyConfig` then onConfig listeners; `report` a health state change then onChange listeners.
 */
export class TestGatewayState implements GatewayState {
  config: GatewayConfig | null = null;
  readonly health: TestHealth = new TestHealth();
  readonly #listeners = new Set<(config: GatewayConfig) => void>();

  onConfig(listener: (config: GatewayConfig) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  applyConfig(config: GatewayConfig): void {
    this.config = config;
    this.health.track(config);
    for (const l of this.#listeners) l(config);
  }
}

export class TestHealth implements HealthMonitor {
  #states: Record<string, BackendHealth> = {};
  readonly #changes = new Set<(change: HealthChange) => void>();
  track(config: GatewayConfig): void {
    const now = new Date().toISOString();
    this.#states = Object.fromEntries(
      Object.values(config.backends).map((b) => [b.name, this.#states[b.name] ?? { state: b.health ? 'unknown' : 'healthy', healthy: true, error: '', lastCheckAt: null, failures: 0, latencyMs: null, since: now, checked: b.health !== null }]),
    );
  }
  async stop(): Promise<void> {}
  snapshot(): Readonly<Record<string, BackendHealth>> {
    return this.#states;
  }
  onCheck(): () => void {
    return () => {};
  }
  onChange(listener: (change: HealthChange) => void): () => void {
    this.#changes.add(listener);
    return () => this.#changes.delete(listener);
  }
  timeline(): readonly HealthChange[] {
    return [];
  }
  report(backend: string, state: BackendHealth['state']): void {
    const before = this.#states[backend]!;
    const at = new Date().toISOString();
    this.#states = { ...this.#states, [backend]: { ...before, state, healthy: state !== 'unhealthy', lastCheckAt: at, since: at } };
    for (const l of this.#changes) l({ backend, from: before.state, to: state, at, error: '' });
  }
}
