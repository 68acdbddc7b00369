import type { GatewayLogRecord, HealthChange, HealthMonitor } from '../../contracts.js';
import type { GatewayConfig } from '../../config/model.js';
import { cleanup, recordingSink, testLogger } from '../../backend/testing/backend-fixture.js';
import type { ProcessEnv } from '../../backend/transport.js';
import { createHealthMonitor } from '../health-monitor.js';

export interface Monitored {
  readonly monitor: HealthMonitor;
  readonly records: GatewayLogRecord[];
  readonly lines: string[];
  /** Changes passed to the `events` option. */
  readonly events: HealthChange[];
}

/** A real monitor (stopped after the test), tracking `config` unless `track` is false. */
export function monitorFor(config: GatewayConfig | null, options: { env?: ProcessEnv; sink?: boolean } = {}): Monitored {
  const sink = recordingSink();
  const logger = testLogger();
  const events: HealthChange[] = [];
  const monitor = createHealthMonitor({ logger, ...(options.sink === false ? {} : { logSink: sink }), events: (c) => void events.push(c), env: options.env ?? {} });
  cleanup(() => monitor.stop());
  if (config) monitor.track(config);
  return { monitor, records: sink.records, lines: logger.lines, events };
}

/** `from→to` of each change, for compact assertions. */
export function transitions(changes: readonly HealthChange[], backend?: string): string[] {
  return changes.filter((c) => backend === undefined || c.backend === backend).map((c) => `${c.from}→${c.to}`);
}
