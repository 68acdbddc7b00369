/**
 * A backend's client: the health gate, then one BackendExchange per request over the
 * backend's transport.
 */
import type { BackendClient, BackendRequest, BackendResponse, GatewayLogRecord, HealthMonitor } from '../contracts.js';
import type { BackendConfig } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import { BackendExchange } from './backend-exchange.js';
import { backendLogRecord } from './backend-log.js';
import type { BackendTransport } from './transport.js';

export interface BackendClientOptions {
  readonly transport: BackendTransport;
  readonly health: HealthMonitor;
  readonly log: ((record: GatewayLogRecord) => void) | null;
}

export function createBackendClient(config: BackendConfig, { transport, health, log }: BackendClientOptions): BackendClient {
  return {
    config,
    send: async function sendToBackend(request: BackendRequest): Promise<BackendResponse> {
      const origin = config.origin ?? request.url.origin;
      const state = health.snapshot()[config.name];
      if (state?.state === 'unhealthy' && !config.useWhenUnhealthy) {
        const error = new GatewayError('backend_unhealthy', `${origin}: backend "${config.name}" is unhealthy${state.error ? `: ${state.error}` : ''}`, { source: config.name });
        log?.(notSentRecord(config.name, request, error));
        throw error;
      }
      const exchange = new BackendExchange(
        {
          dispatcher: transport.dispatcher,
          backend: config.name,
          errors: { backend: config.name, origin, connectTimeout: config.connectTimeout, ttfbTimeout: config.ttfbTimeout },
          timeout: config.timeout,
          ttfbTimeout: config.ttfbTimeout,
          reset: config.disableConnectionReuse,
          servername: transport.servername,
          log,
        },
        request,
      );
      return exchange.run();
    },
  };
}

/** The log line of a request refused before anything was sent (the health gate, an OpenAPI request violation). */
export function notSentRecord(backend: string, request: BackendRequest, error: GatewayError): GatewayLogRecord {
  let custom: Readonly<Record<string, unknown>> | null = null;
  try {
    custom = request.customLogFields?.(null) ?? null;
  } catch {
    custom = null;
  }
  return backendLogRecord({
    startedAt: new Date(),
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
  });
}
