// The daemon's real control server (HTTP + WebSocket, auth) over a real ConfigManager, for the control API tests.
import type { TRPCClient } from '@trpc/client';
import { afterEachTest } from '../../../testing/after-each-test.js';
import { EventBus } from '../../../control/event-bus.js';
import type { AppRouter } from '../../../main/app-router.js';
import { startAppApi } from '../../../main/testing/control-server.js';
import { ControlServices } from '../../../control/trpc.js';
import { BACKENDS_SERVICE, CONFIG_SERVICE } from '../control-router.js';
import type { BackendHealth, HealthChange, HealthMonitor } from '../../contracts.js';
import type { GatewayConfig } from '../../config/model.js';
import { MemoryLogger, RecordingTarget } from '../../reload/testing/config-files.js';
import { createGatewayControl, type GatewayControl } from '../control-service.js';
import { fixedStatus } from '../../../control/testing/fixed-status.js';

const TOKEN = 'test-token-0123456789abcdef';
const cleanups: Array<() => Promise<void> | void> = [];
afterEachTest(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A health monitor driven by the test: `report` plays the outcome of one check the way the
 * gateway's monitor reports it (onCheck, then onChange when the state moved).
 */
export class ScriptedHealth implements HealthMonitor {
  #states: Record<string, BackendHealth> = {};
  #checks = new Set<(backend: string, health: BackendHealth) => void>();
  #changes = new Set<(change: HealthChange) => void>();
  #timeline: HealthChange[] = [];
  track(config: GatewayConfig): void {
    const now = new Date().toISOString();
    const next: Record<string, BackendHealth> = {};
    for (const b of Object.values(config.backends)) {
      next[b.name] = this.#states[b.name] ?? { state: b.health ? 'unknown' : 'healthy', healthy: true, error: '', lastCheckAt: null, failures: 0, latencyMs: null, since: now, checked: b.health !== null };
    }
    this.#states = next;
  }
  async stop(): Promise<void> {}
  snapshot(): Readonly<Record<string, BackendHealth>> {
    return this.#states;
  }
  onCheck(listener: (backend: string, health: BackendHealth) => void): () => void {
    this.#checks.add(listener);
    return () => this.#checks.delete(listener);
  }
  onChange(listener: (change: HealthChange) => void): () => void {
    this.#changes.add(listener);
    return () => this.#changes.delete(listener);
  }
  timeline(): readonly HealthChange[] {
    return this.#timeline;
  }
  report(backend: string, state: BackendHealth['state'], error = '', latencyMs = 3): void {
    const before = this.#states[backend]!;
    const at = new Date().toISOString();
    const failures = state === 'healthy' ? 0 : before.failures + 1;
    const health: BackendHealth = { ...before, state, healthy: state !== 'unhealthy', error, lastCheckAt: at, failures, latencyMs, since: state === before.state ? before.since : at };
    this.#states = { ...this.#states, [backend]: health };
    for (const l of this.#checks) l(backend, health);
    if (state !== before.state) {
      const change: HealthChange = { backend, from: before.state, to: state, at, error };
      this.#timeline.push(change);
      for (const l of this.#changes) l(change);
    }
  }
}

/** A target that also lets the health monitor track each applied configuration, as the gateway does. */
class TrackingTarget extends RecordingTarget {
  constructor(private readonly health: HealthMonitor) {
    super();
  }
  override async apply(config: GatewayConfig): Promise<void> {
    await super.apply(config);
    this.health.track(config);
  }
}

export interface ApiFixture {
  url: string;
  token: string;
  api: TRPCClient<AppRouter>;
  bus: EventBus;
  gateway: GatewayControl;
  health: ScriptedHealth;
  target: RecordingTarget;
}

/** `monitor`: the health monitor to use instead of a ScriptedHealth (e.g. the gateway's real one). */
export async function startApi(files: string[] | null, monitor?: HealthMonitor): Promise<ApiFixture> {
  const bus = new EventBus('boot');
  const health = new ScriptedHealth();
  const used = monitor ?? health;
  const target = new TrackingTarget(used);
  const gateway = createGatewayControl({ files: files ?? [], env: {}, target, health: used, events: bus, logger: new MemoryLogger() });
  const status = fixedStatus(bus, files ? 'all' : 'cds');
  const services = new ControlServices(status, bus);
  if (files) {
    await gateway.manager.start();
    services.provide(CONFIG_SERVICE, gateway.config).provide(BACKENDS_SERVICE, gateway.backends);
  }
  cleanups.push(async () => {
    await gateway.manager.stop();
    gateway.close();
    await used.stop();
  });
  const { url, api, close } = await startAppApi(services, TOKEN);
  cleanups.push(close);
  return { url, token: TOKEN, api, bus, gateway, health, target };
}
