import { describe, expect, it } from 'vitest';
import { loadOk } from './testing/config-files.js';

describe('servers, settings and backends in the model', () => {
  it('fills every setting with the default of the spec', async () => {
    const config = await loadOk({ 'portico.hcl': 'server {}\n' });
    expect(config.settings).toEqual({
      acceptForwardedUrl: [],
      defaultPort: 8080,
      healthPath: '/healthz',
      httpsDevProxy: [],
      logFormat: 'common',
      logLevel: 'info',
      logPretty: false,
      noProxyFromEnv: false,
      requestIdAcceptFromHeader: '',
      requestIdBackendHeader: 'Gateway-Request-ID',
      requestIdClientHeader: 'Gateway-Request-ID',
      requestIdFormat: 'common',
      secureCookies: '',
      xfh: false,
      betaMetrics: false,
      betaMetricsPort: 9090,
      betaServiceName: 'gateway',
      caFile: null,
    });
    expect(config.servers[0]).toMatchObject({ name: null, hosts: [{ host: '*', port: 8080 }], basePath: '/', errorFile: null, cors: null });
  });

  it('normalises hosts to host:port with default_port, lower case, without repeats', async () => {
    const config = await loadOk({
      'portico.hcl': 'server {\n  hosts = ["*", "API.Example.com", "api.example.com:*", "api.example.com:9000", "*:443"]\n}\nsettings {\n  default_port = 9000\n  accept_forwarded_url = ["proto", "host"]\n}\n',
    });
    expect(config.servers[0]?.hosts).toEqual([
      { host: '*', port: 9000 },
      { host: 'api.example.com', port: 9000 },
      { host: '*', port: 443 },
    ]);
    expect(config.settings.acceptForwardedUrl).toEqual(['proto', 'host']);
  });

  it('defaults a lone server without hosts, or with an empty list, to *:<default_port>', async () => {
    const config = await loadOk({ 'portico.hcl': 'server "only" {}\nsettings {\n  default_port = 8081\n}\n' });
    expect(config.servers[0]?.hosts).toEqual([{ host: '*', port: 8081 }]);
    const empty = await loadOk({ 'portico.hcl': 'server {\n  hosts = []\n}\n' });
    expect(empty.servers[0]?.hosts).toEqual([{ host: '*', port: 8080 }]);
  });

  it('reads cors with its defaults', async () => {
    const config = await loadOk({ 'portico.hcl': 'server {\n  cors {\n    allowed_origins = "*"\n    max_age = "1h"\n  }\n}\n' });
    expect(config.servers[0]?.cors).toMatchObject({ allowedOrigins: ['*'], allowCredentials: false, disable: false, maxAge: 3_600_000 });
  });

  it('gives backends every attribute, normalised origins and health checks with their defaults', async () => {
    const config = await loadOk({
      'portico.hcl': `server {}
definitions {
  backend "plain" {
    origin = "http://plain.example:80"
  }
  backend "full" {
    origin = "https://full.example:8443"
    hostname = "internal.example"
    path_prefix = "/v2"
    basic_auth = "user:\${env.PASSWORD}"
    connect_timeout = "2s"
    disable_connection_reuse = true
    http2 = true
    max_connections = 10
    use_when_unhealthy = true
    set_request_headers = { via = "portico" }
    beta_health {
      path = "/health?full=1"
      expected_status = [200]
      expected_text = "ok"
      failure_threshold = 3
      interval = "1s"
      timeout = "5s"
      headers = { accept = "text/plain" }
    }
  }
}
`,
    }, { PASSWORD: 'pw' });
    expect(config.backends['plain']).toMatchObject({
      name: 'plain',
      anonymous: false,
      origin: 'http://plain.example',
      hostname: null,
      connectTimeout: 10_000,
      timeout: 300_000,
      ttfbTimeout: 60_000,
      disableCertificateValidation: false,
      disableConnectionReuse: false,
      http2: false,
      maxConnections: 0,
      proxy: null,
      useWhenUnhealthy: false,
      health: null,
    });
    expect(config.backends['full']).toMatchObject({
      origin: 'https://full.example:8443',
      hostname: { kind: 'static', value: 'internal.example' },
      pathPrefix: { kind: 'static', value: '/v2' },
      basicAuth: { kind: 'static', value: 'user:pw' },
      connectTimeout: 2000,
      disableConnectionReuse: true,
      http2: true,
      maxConnections: 10,
      useWhenUnhealthy: true,
      modifiers: { setRequestHeaders: { kind: 'static', value: { via: 'portico' } } },
      // The check timeout is bounded by the interval.
      health: { path: '/health?full=1', expectedStatus: [200], expectedText: 'ok', failureThreshold: 3, interval: 1000, timeout: 1000, headers: { accept: 'text/plain' } },
    });
  });

  it('fills beta_health defaults', async () => {
    const config = await loadOk({ 'portico.hcl': 'server {}\ndefinitions {\n  backend "b" {\n    origin = "http://b"\n    beta_health {}\n  }\n}\n' });
    expect(config.backends['b']?.health).toEqual({ expectedStatus: [200, 204, 301], expectedText: null, failureThreshold: 2, headers: {}, interval: 2000, path: null, timeout: 2000 });
  });

  it('reads https_dev_proxy entries as TLS port and plain port (load errors: config/https-dev-proxy.test.ts)', async () => {
    const config = await loadOk({ 'portico.hcl': 'server {}\nsettings {\n  https_dev_proxy = ["8443:8080"]\n}\n' });
    expect(config.settings.httpsDevProxy).toMatchObject([{ tlsPort: 8443, plainPort: 8080 }]);
  });
});
