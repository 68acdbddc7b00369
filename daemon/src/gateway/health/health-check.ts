/**
 * One health check: GET origin + `path` over the backend's own transport (TLS, proxy),
 * bounded by the check's `timeout`, judged by `expected_status` and `expected_text`.
 */
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import type { GatewayLogRecord } from '../contracts.js';
import type { BackendConfig, HealthConfig } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import { BackendExchange } from '../backend/backend-exchange.js';
import type { BackendTransport } from '../backend/transport.js';

/** The check reads at most this much of the body looking for `expected_text`. */
const TEXT_LIMIT = 1024 * 1024;

export interface CheckTarget {
  readonly backend: BackendConfig;
  readonly health: HealthConfig;
  readonly origin: string;
  readonly transport: BackendTransport;
  readonly userAgent: string;
}

export interface CheckResult {
  /** "" when the check passed. */
  readonly error: string;
  readonly status: number | null;
  readonly latencyMs: number;
  /** The check request's `gateway_backend` record (handler `health-check`). */
  readonly record: GatewayLogRecord | null;
}

export function checkUrl(target: Pick<CheckTarget, 'origin' | 'health'>): URL {
  return new URL(target.health.path ?? '/', target.origin);
}

export function checkHeaders(target: Pick<CheckTarget, 'backend' | 'health' | 'userAgent'>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.health.headers)) headers[name.toLowerCase()] = value;
  headers['user-agent'] ??= target.userAgent;
  const { hostname } = target.backend;
  if (hostname?.kind === 'static' && headers.host === undefined) headers.host = hostname.value;
  return headers;
}

export async function runHealthCheck(target: CheckTarget, signal: AbortSignal): Promise<CheckResult> {
  const start = performance.now();
  let record: GatewayLogRecord | null = null;
  const { backend, health, origin } = target;
  const exchange = new BackendExchange(
    {
      dispatcher: target.transport.dispatcher,
      backend: backend.name,
      errors: { backend: backend.name, origin, connectTimeout: backend.connectTimeout, ttfbTimeout: 0 },
      // The check's timeout bounds the whole check, body included.
      timeout: health.timeout,
      ttfbTimeout: 0,
      reset: false,
      servername: target.transport.servername,
      log: (r) => {
        record = r;
      },
    },
    { method: 'GET', url: checkUrl(target), headers: checkHeaders(target), body: null, signal, requestId: randomUUID(), handler: 'health-check' },
  );
  let status: number | null = null;
  let error = '';
  try {
    const response = await exchange.run();
    status = response.status;
    if (!health.expectedStatus.includes(response.status)) {
      response.body.destroy();
      error = `unexpected status ${response.status}`;
    } else if (health.expectedText !== null) {
      if (!(await bodyContains(response.body, health.expectedText))) error = `expected text ${JSON.stringify(health.expectedText)} not found`;
    } else {
      response.body.resume();
      await new Promise<void>((resolve, reject) => response.body.once('end', resolve).once('error', reject));
    }
  } catch (failure) {
    error = describe(failure, origin);
  }
  return { error, status, latencyMs: Math.round(performance.now() - start), record };
}

async function bodyContains(body: NodeJS.ReadableStream & { destroy(): void }, text: string): Promise<boolean> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    chunks.push(buffer);
    size += buffer.length;
    if (size >= TEXT_LIMIT) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, TEXT_LIMIT).toString('utf8').includes(text);
}

/** Short and useful: `connect ECONNREFUSED 127.0.0.1:1234`, `timeout after 2s` (the origin is known from context). */
function describe(failure: unknown, origin: string): string {
  if (failure instanceof GatewayError) {
    return failure.detail.startsWith(`${origin}: `) ? failure.detail.slice(origin.length + 2) : failure.detail;
  }
  return failure instanceof Error ? failure.message : String(failure);
}
