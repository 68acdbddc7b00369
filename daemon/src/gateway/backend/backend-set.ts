/**
 * The backends of one configuration: a client (and undici transport) per entry of
 * `config.backends`, built aside on reload and closed after the swap.
 */
import type { BackendClient, BackendSet, GatewayLogSink, HealthMonitor } from '../contracts.js';
import type { GatewayConfig } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import { callAuthServer } from '../access/oauth2/auth-server.js';
import { createBackendClient } from './backend-client.js';
import { ClientCredentialsToken, withClientCredentials } from './client-credentials.js';
import { CaCache, createTransport, type BackendTransport, type ProcessEnv } from './transport.js';
import type { SharedTransports } from './shared-transports.js';
import { HeldRecords } from '../openapi/held-records.js';
import { withOpenApi } from '../openapi/with-openapi.js';

export interface BackendSetOptions {
  /** The daemon's monitor: its state gates requests (`backend_unhealthy`). The caller tracks configs on it. */
  readonly health: HealthMonitor;
  /** Receives a `gateway_backend` record per request. */
  readonly logSink?: GatewayLogSink;
  /** The process environment, for HTTP_PROXY / HTTPS_PROXY / NO_PROXY. */
  readonly env?: ProcessEnv;
  /** Transports kept across the sets of one gateway: an unchanged backend keeps its connections over a reload. */
  readonly transports?: SharedTransports;
}

/** Throws GatewayError `configuration` when a backend cannot be built (an unreadable ca_file). */
export function createBackendSet(config: GatewayConfig, { health, logSink, env = process.env, transports: shared }: BackendSetOptions): BackendSet {
  const log = logSink ? logSink.write.bind(logSink) : null;
  const logEntry = logSink?.writeBackend ? logSink.writeBackend.bind(logSink) : null;
  const caCache = new CaCache();
  const clients = new Map<string, BackendClient>();
  const transports: BackendTransport[] = [];
  const heldRecords = new Map<string, HeldRecords>();
  try {
    for (const [name, backend] of Object.entries(config.backends)) {
      const transport = shared ? shared.acquire(backend, config.settings, env, caCache) : createTransport(backend, config.settings, env, caCache);
      transports.push(transport);
      // OpenAPI validation finishes after the exchange wrote its record: the record waits for the outcome.
      const held = backend.openapi === null ? null : new HeldRecords(log);
      if (held !== null) heldRecords.set(name, held);
      clients.set(name, createBackendClient(backend, { transport, health, log: held?.sink ?? log, logEntry: held ? null : logEntry }));
    }
  } catch (error) {
    for (const transport of transports) void transport.destroy();
    throw error;
  }
  let closing: Promise<void> | null = null;
  const set: BackendSet = {
    health,
    get(name: string): BackendClient {
      const client = clients.get(name);
      if (!client) throw new GatewayError('configuration', `backend "${name}" is not defined in the active configuration`, { source: name });
      return client;
    },
    close(): Promise<void> {
      closing ??= Promise.all(transports.map((t) => t.close())).then(() => undefined);
      return closing;
    },
  };
  // Token requests go through the oauth2 block's own backend (built above), so they are wrapped last.
  for (const [name, backend] of Object.entries(config.backends)) {
    const oauth2 = backend.oauth2;
    const client = clients.get(name);
    if (oauth2 === null || !client) continue;
    const tokens = new ClientCredentialsToken(oauth2, (request, signal) => callAuthServer(config, set, oauth2.backend, request, null, signal));
    clients.set(name, withClientCredentials(client, oauth2, tokens));
  }
  // Validation wraps the token handling: a 401 answered with a retry is not a response to validate.
  for (const [name, held] of heldRecords) {
    const client = clients.get(name);
    const openapi = config.backends[name]?.openapi;
    if (client && openapi) clients.set(name, withOpenApi(client, openapi, held));
  }
  return set;
}
