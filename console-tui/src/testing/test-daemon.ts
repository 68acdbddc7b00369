// The daemon's real control server (auth, HTTP + WebSocket) over an in-memory status and event bus.
import type { ControlServer } from '../../../daemon/src/control/server.js';
import { ControlServices } from '../../../daemon/src/control/trpc.js';
import { startAppControlServer } from '../../../daemon/src/main/testing/control-server.js';
import { EventBus } from '../../../daemon/src/control/event-bus.js';
import type { ComponentStatus, SystemStatus } from '../../../daemon/src/control/client-types.js';

export interface TestDaemon {
  url: string;
  port: number;
  token: string;
  bus: EventBus;
  status(): SystemStatus;
  setComponent(name: string, state: ComponentStatus['state'], detail?: string | null): void;
  close(): Promise<void>;
}

export const TEST_TOKEN = 'test-token-0123456789abcdef';

export async function startTestDaemon({ token = TEST_TOKEN, port = 0, bootId = 'boot-a' } = {}): Promise<TestDaemon> {
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
    lastEventId: bus.lastId,
    store: { kind: 'sqlite', location: 'data/portico.db', schemaVersion: 1 },
    components: components.map((c) => ({ ...c })),
  });
  const server: ControlServer = await startAppControlServer({ host: '127.0.0.1', port, token, services: new ControlServices(async () => status(), bus) });
  return {
    url: server.url,
    port: server.port,
    token,
    bus,
    status,
    setComponent(name, state, detail = null) {
      const component: ComponentStatus = { name, state, since: new Date().toISOString(), detail };
      const i = components.findIndex((c) => c.name === name);
      if (i >= 0) components[i] = component;
      else components.push(component);
      bus.publish({ type: 'component.state', message: `${name} ${state}`, component });
    },
    close: () => server.close(),
  };
}
