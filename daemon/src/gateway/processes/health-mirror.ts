/**
 * The backends' health in a gateway serving process: the daemon runs the checks (once, not once
 * per process) and sends each new snapshot; requests read the latest one, as they read the
 * monitor's in a single process. It runs no checks and keeps no timeline of its own.
 */
import type { BackendHealth, HealthMonitor } from '../contracts.js';

export interface HealthMirror extends HealthMonitor {
  /** The daemon's latest snapshot. */
  update(snapshot: Readonly<Record<string, BackendHealth>>): void;
}

export function createHealthMirror(): HealthMirror {
  let current: Readonly<Record<string, BackendHealth>> = {};
  return {
    update(snapshot) {
      current = snapshot;
    },
    snapshot: () => current,
    track: () => undefined,
    stop: async () => undefined,
    onCheck: () => () => undefined,
    onChange: () => () => undefined,
    timeline: () => [],
  };
}
