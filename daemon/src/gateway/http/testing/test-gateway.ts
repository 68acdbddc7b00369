/**
 * Test support for the HTTP front: a GatewayServer on loopback with a configuration loaded
 * from temporary files, an EndpointHandler that answers from the matched endpoint (the
 * front's seam), backend sets that record when they are closed, and the log lines captured.
 */
import { afterEachTest } from '../../../testing/after-each-test.js';
import type { GatewayConfig } from '../../config/model.js';
import { load } from '../../config/testing/config-files.js';
import type { BackendHealth, BackendSet, EndpointContext, EndpointHandler, GatewayLogRecord, GatewayResponse, HealthMonitor } from '../../contracts.js';
import { createEndpointHandler } from '../../endpoint/endpoint-handler.js';
import { GatewayError, type GatewayErrorKind } from '../../errors/error-types.js';
import { createGatewayLogSink } from '../../logs/log-sink.js';
import { GatewayServer, type GatewayServerOptions } from '../gateway-server.js';

const running: GatewayServer[] = [];
afterEachTest(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

export { freePort } from '../../../core/testing/free-port.js';

/** The real access-control guard of files and spa blocks (the echo handler below answers endpoints only). */
const realHandler = createEndpointHandler();

/**
 * Answers from the endpoint: its static `response` block when it has one, else JSON with what
 * the front passed in. `x-test-error: <type>` makes it throw that GatewayError.
 */
export const echoEndpointHandler: EndpointHandler = {
  guard: (ctx) => realHandler.guard(ctx),
  async handle(ctx: EndpointContext): Promise<GatewayResponse> {
    // It runs no access controls: the methods are checked at once.
    ctx.methodCheck?.();
    const wanted = ctx.request.headers['x-test-error'];
    if (typeof wanted === 'string') throw new GatewayError(wanted as GatewayErrorKind, `test asked for ${wanted}: secret detail`);
    const response = ctx.endpoint.response;
    if (response && response.status.kind === 'static' && (response.body === null || response.body.kind === 'static')) {
      const headers: Record<string, string | string[]> = {};
      if (response.headers?.kind === 'static') for (const [k, v] of Object.entries(response.headers.value)) if (v !== null) headers[k.toLowerCase()] = typeof v === 'string' ? v : [...v];
      const body = response.body ? Buffer.from(response.body.value) : null;
      headers['content-type'] ??= 'text/plain; charset=utf-8';
      if (body) headers['content-length'] = String(body.length);
      return { status: response.status.value, headers, body };
    }
    const body = Buffer.from(
      JSON.stringify({
        endpoint: ctx.endpoint.pattern,
        path: ctx.endpoint.path,
        api: ctx.api?.name ?? null,
        server: ctx.server.name,
        method: ctx.request.method,
        id: ctx.request.id,
        url: ctx.request.url.href,
        params: ctx.request.pathParams,
        wildcard: ctx.request.wildcard,
      }),
    );
    return { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(body.length) }, body };
  },
};

const NO_HEALTH: HealthMonitor = {
  track: () => undefined,
  stop: async () => undefined,
  snapshot: (): Readonly<Record<string, BackendHealth>> => ({}),
  onCheck: () => () => undefined,
  onChange: () => () => undefined,
  timeline: () => [],
};

export interface TestBackendSet extends BackendSet {
  readonly config: GatewayConfig;
  closed: boolean;
}

export interface TestGateway {
  readonly server: GatewayServer;
  readonly config: GatewayConfig;
  readonly dir: string;
  /** Rendered log lines, in order. */
  readonly lines: string[];
  /** Every BackendSet created, in apply order (with whether it was closed). */
  readonly backendSets: TestBackendSet[];
  /** `http://127.0.0.1:<bound port>` of a configured port (the first one by default). */
  url(path?: string, port?: number): string;
  /** Loads other files from the same kind of temporary directory, for apply(). */
  loadConfig(files: Record<string, string>): Promise<GatewayConfig>;
}

export interface TestGatewayOptions extends Partial<Omit<GatewayServerOptions, 'createBackends' | 'logSink' | 'logger'>> {
  readonly env?: Record<string, string>;
}

export async function loadConfigFiles(files: Record<string, string>, env: Record<string, string> = {}): Promise<{ config: GatewayConfig; dir: string }> {
  const loaded = await load(files, env);
  if (!loaded.config) throw new Error(`expected a valid configuration, got:\n${loaded.messages.join('\n')}`);
  return { config: loaded.config, dir: loaded.dir };
}

/** Loads `files`, starts a GatewayServer on 127.0.0.1 (or `listenHost`: `::` for every address) with it, and stops it after the test. */
export async function startGateway(files: Record<string, string>, options: TestGatewayOptions = {}): Promise<TestGateway> {
  const { config, dir } = await loadConfigFiles(files, options.env);
  const lines: string[] = [];
  const backendSets: TestBackendSet[] = [];
  const sink = createGatewayLogSink({ write: (line) => lines.push(line) });
  const server = new GatewayServer({
    endpointHandler: options.endpointHandler ?? echoEndpointHandler,
    createBackends: (cfg) => {
      const set: TestBackendSet = {
        config: cfg,
        closed: false,
        health: NO_HEALTH,
        get(name) {
          throw new GatewayError('configuration', `the HTTP front tests have no backend ${name}`);
        },
        async close() {
          set.closed = true;
        },
      };
      backendSets.push(set);
      return set;
    },
    logSink: sink,
    logger: { info: () => undefined, warn: (m) => lines.push(`WARN ${m}`), error: (m) => lines.push(`ERROR ${m}`) },
    shutdownDelayMs: options.shutdownDelayMs ?? 0,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 2000,
    listenHost: options.listenHost ?? '127.0.0.1',
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.devCertificateDir ? { devCertificateDir: options.devCertificateDir } : {}),
  });
  running.push(server);
  await server.apply(config);
  const firstPort = config.servers[0]?.hosts[0]?.port ?? 0;
  return {
    server,
    config,
    dir,
    lines,
    backendSets,
    url(path = '/', port = firstPort) {
      const bound = server.boundPort(port);
      if (bound === null) throw new Error(`no listener for configured port ${port}`);
      return `http://127.0.0.1:${bound}${path}`;
    },
    loadConfig: async (more) => (await loadConfigFiles(more, options.env)).config,
  };
}

/** The json access records among `lines` (config with log_format = "json"). */
export function jsonRecords(lines: readonly string[]): GatewayLogRecord[] {
  return lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as GatewayLogRecord);
}

// The raw request helper is shared with the dashboard's static-file tests.
export { send, type RawResponse } from '../../../core/testing/raw-http.js';

/** A one-endpoint configuration on `ports` whose `/version` answers `version`: which configuration serves, through a switch. */
export const versionConfig = (version: string, ports: readonly number[]): string => `
server {
  hosts = [${ports.map((p) => `"*:${p}"`).join(', ')}]
  endpoint "/version" {
    response { body = "${version}" }
  }
}
`;
