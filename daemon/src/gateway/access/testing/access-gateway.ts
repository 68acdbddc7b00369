/**
 * Test support for access control: the real HTTP front and endpoint handler over a
 * configuration written with its files (htpasswd, keys), real backends from the endpoint
 * test support, and the denials the consoles would be told of.
 */
import { afterEachTest } from '../../../testing/after-each-test.js';
import { createBackendSet } from '../../backend/index.js';
import type { GatewayConfig } from '../../config/model.js';
import { load } from '../../config/testing/config-files.js';
import type { AccessControlSet, AccessDenial, GatewayLogRecord } from '../../contracts.js';
import { createEndpointHandler } from '../../endpoint/endpoint-handler.js';
import { fixedHealth } from '../../endpoint/testing/endpoint-gateway.js';
import { GatewayServer } from '../../http/gateway-server.js';

const servers: GatewayServer[] = [];
afterEachTest(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

export interface AccessGateway {
  readonly config: GatewayConfig;
  readonly records: GatewayLogRecord[];
  readonly denials: AccessDenial[];
  readonly warnings: string[];
  /** The gateway logger's warnings with their fields (the request's `uid` where one was being served). */
  readonly warned: { message: string; fields: Record<string, unknown> }[];
  url(path: string): string;
  /** The access controls serving now (login providers' status). */
  access(): AccessControlSet;
}

/** Loads `files` (the `.hcl` ones are the configuration) and serves them on a free loopback port. */
export async function startAccessGateway(files: Record<string, string>, env: Record<string, string> = {}): Promise<AccessGateway> {
  const loaded = await load(files, env);
  if (!loaded.config) throw new Error(`expected a valid configuration, got:\n${loaded.messages.join('\n')}`);
  const config = loaded.config;
  const records: GatewayLogRecord[] = [];
  const denials: AccessDenial[] = [];
  const warnings: string[] = [];
  const warned: { message: string; fields: Record<string, unknown> }[] = [];
  const sink = { write: (r: GatewayLogRecord) => records.push(r) };
  const server = new GatewayServer({
    endpointHandler: createEndpointHandler({ logger: { warn: (m) => warnings.push(m) } }),
    createBackends: (cfg) => createBackendSet(cfg, { health: fixedHealth(), logSink: sink, env: {} }),
    logSink: sink,
    logger: {
      info: () => undefined,
      warn: (message, fields = {}) => {
        warnings.push(message);
        warned.push({ message, fields });
      },
      error: (m) => warnings.push(m),
    },
    shutdownDelayMs: 0,
    shutdownTimeoutMs: 1000,
    listenHost: '127.0.0.1',
    onAccessDenied: (d) => denials.push(d),
  });
  servers.push(server);
  await server.apply(config);
  const port = config.servers[0]?.hosts[0]?.port ?? 0;
  const access = (): AccessControlSet => {
    if (!server.access) throw new Error('the gateway serves no configuration');
    return server.access;
  };
  return { config, records, denials, warnings, warned, url: (path) => `http://127.0.0.1:${server.boundPort(port) ?? 0}${path}`, access };
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** The access records, in order. */
export function accessLines(gw: AccessGateway): GatewayLogRecord[] {
  return gw.records.filter((r) => r.type === 'gateway_access');
}
