/**
 * A backend's client: the health gate, then one BackendExchange per request over the
 * backend's transport.
 */
import type { BackendClient, BackendRequest, BackendResponse, GatewayLogRecord, HealthMonitor } from '../contracts.js';
import type { BackendConfig } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import { BackendExchange, type ExchangeOptions } from './backend-exchange.js';
import { backendLogRecord, type BackendLogInput } from './backend-log.js';
import type { BackendTransport } from './transport.js';

export interface BackendClientOptions {
  readonly transport: BackendTransport;
  readonly health: HealthMonitor;
  readonly log: ((record: GatewayLogRecord) => void) | null;
  /** Takes records by their parts instead of `log` (see ExchangeOptions.logEntry). */
  readonly logEntry?: ((entry: BackendLogInput) => void) | null;
}

export function createBackendClient(config: BackendConfig, { transport, health, log, logEntry = null }: BackendClientOptions): BackendClient {
  // What every exchange of a backend with an origin shares, made once.
  const exchangeOptions = (origin: string): ExchangeOptions => ({
    dispatcher: transport.dispatcher,
    backend: config.name,
    errors: { backend: config.name, origin, connectTimeout: config.connectTimeout, ttfbTimeout: config.ttfbTimeout },
    timeout: config.timeout,
    ttfbTimeout: config.ttfbTimeout,
    reset: config.disableConnectionReuse,
    servername: transport.servername,
    log,
    logEntry,
  });
  const fixed = config.origin === null ? null : exchangeOptions(config.origin);
  return {
    config,
    send: function sendToBackend(request: BackendRequest): Promise<BackendResponse> {
      const state = health.snapshot()[config.name];
      if (state?.state === 'unhealthy' && !config.useWhenUnhealthy) {
        const origin = config.origin ?? request.url.origin;
        const error = new GatewayError('backend_unhealthy', `${origin}: backend "${config.name}" is unhealthy${state.error ? `: ${state.error}` : ''}`, { source: config.name });
        const entry = notSentEntry(config.name, request, error);
        if (logEntry) logEntry(entry);
        else log?.(backendLogRecord(entry));
        return Promise.reject(error);
      }
      try {
        return new BackendExchange(fixed ?? exchangeOptions(request.url.origin), request).run();
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

/** The log line of a request refused before anything was sent (the health gate, an OpenAPI request violation). */
export function notSentRecord(backend: string, request: BackendRequest, error: GatewayError): GatewayLogRecord {
  return backendLogRecord(notSentEntry(backend, request, error));
}

function notSentEntry(backend: string, request: BackendRequest, error: GatewayError): BackendLogInput {
  let custom: Readonly<Record<string, unknown>> | null = null;
  try {
    custom = request.customLogFields?.(null) ?? null;
  } catch {
    custom = null;
  }
  return {
    startedAt: Date.now(),
    requestId: request.requestId,
    backend,
    handler: request.handler,
    method: request.method,
    url: request.url,
    requestHeaders: request.headers,
    requestBytes: 0,
    status: null,
    responseHeaders: null,
    responseBytes: 0,
    protocol: null,
    timings: { dns: null, tcp: null, tls: null, ttfb: null, total: 0 },
    error,
    custom,
  };
}
