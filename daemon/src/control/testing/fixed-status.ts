import type { DaemonMode, SystemStatus } from '../client-types.js';
import type { EventBus } from '../event-bus.js';

/** `system.status` for control-API test kits: a daemon of `mode` that just started, its events from `bus`. */
export function fixedStatus(bus: EventBus, mode: DaemonMode): () => Promise<SystemStatus> {
  const startedAt = new Date().toISOString();
  return async () => ({
    version: '0.0.0',
    mode,
    pid: process.pid,
    startedAt,
    uptimeSeconds: 1,
    bootId: 'boot',
    lastEventId: bus.lastId,
    store: { kind: 'sqlite', location: ':memory:', schemaVersion: 1 },
    components: [],
  });
}
