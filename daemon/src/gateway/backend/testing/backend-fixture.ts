import type { Readable } from 'node:stream';
import { afterEachTest } from '../../../testing/after-each-test.js';
import type { BackendRequest, BackendSet, GatewayLogRecord, GatewayLogSink, HealthMonitor } from '../../contracts.js';
import type { GatewayConfig } from '../../config/model.js';
import { loadOk } from '../../config/testing/config-files.js';
import { Logger } from '../../../core/logger.js';
import { createHealthMonitor } from '../../health/health-monitor.js';
import { createBackendSet } from '../backend-set.js';
import type { ProcessEnv } from '../transport.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEachTest(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs after the test (last registered first). */
export function cleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

/** A configuration with `definitions` (HCL, e.g. `backend "b" { origin = "..." }`) and a minimal server, loaded by the real loader. */
export async function loadDefinitions(definitions: string, files: Record<string, string> = {}, settings = ''): Promise<GatewayConfig> {
  const source = `server {\n  endpoint "/" {\n    response {\n      status = 200\n    }\n  }\n}\ndefinitions {\n${definitions}\n}\n${settings}`;
  return loadOk({ 'portico.hcl': source, ...files });
}

/** Records every log record. */
export function recordingSink(): GatewayLogSink & { records: GatewayLogRecord[] } {
  const records: GatewayLogRecord[] = [];
  return { records, write: (record) => void records.push(record) };
}

/** Log lines of the daemon logger, as text. */
export function testLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = new Logger({ format: 'json', level: 'debug', sink: { write: (line) => void lines.push(line) } });
  return Object.assign(logger, { lines });
}

export interface Backends {
  readonly set: BackendSet;
  readonly health: HealthMonitor;
  readonly log: GatewayLogRecord[];
}

/** A real BackendSet for the config, with a real health monitor tracking it; both closed after the test. */
export function backendsFor(config: GatewayConfig, env: ProcessEnv = {}): Backends {
  const sink = recordingSink();
  const health = createHealthMonitor({ logger: testLogger(), logSink: sink, env });
  health.track(config);
  const set = createBackendSet(config, { health, logSink: sink, env });
  cleanup(async () => {
    await health.stop();
    await Promise.race([set.close(), new Promise((resolve) => setTimeout(resolve, 2000))]);
  });
  return { set, health, log: sink.records };
}

/** A backend request with defaults (GET, no body, never aborted). */
export function backendRequest(url: string, overrides: Partial<BackendRequest> = {}): BackendRequest {
  return { method: 'GET', url: new URL(url), headers: {}, body: null, signal: new AbortController().signal, requestId: 'req-1', handler: 'default', ...overrides };
}

export async function readAll(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks).toString('utf8');
}

/** A promise with its resolve function: a barrier a test opens. */
export function barrier(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Lets undici mark a connection free after a response ended (it does so just after the body's end). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
