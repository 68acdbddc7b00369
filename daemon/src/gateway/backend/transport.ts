/**
 * One backend's undici transport: an Agent (a pool per origin; one origin for a backend
 * with `origin`), its TLS settings, timeouts and connection limits, and the forward proxy
 * from the backend's `proxy` or from the environment.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { Agent, buildConnector, EnvHttpProxyAgent, ProxyAgent, type Dispatcher } from 'undici';
import type { BackendConfig, Settings } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import { timedConnector } from './connection-timings.js';

export type ProcessEnv = Readonly<Record<string, string | undefined>>;

export interface BackendTransport {
  readonly dispatcher: Dispatcher;
  /** TLS server name from a static `hostname`; null lets undici take it from the Host header. */
  readonly servername: string | null;
  /** Where requests go next: `direct`, the backend's proxy, or `env` (HTTP(S)_PROXY, NO_PROXY apply). */
  readonly route: 'direct' | 'proxy' | 'env';
  /** Closes once in-flight requests finish. */
  close(): Promise<void>;
  /** Ends every connection now. */
  destroy(): Promise<void>;
}

/** Settings of the backend that shape its connections; the health check of a backend uses the same. */
export function createTransport(backend: BackendConfig, settings: Settings, env: ProcessEnv, caCache = new CaCache()): BackendTransport {
  const servername = backend.hostname?.kind === 'static' ? hostOnly(backend.hostname.value) : null;
  const caFile = backend.caFile ?? settings.caFile;
  const tls = {
    rejectUnauthorized: !backend.disableCertificateValidation,
    ...(caFile ? { secureContext: caCache.get(caFile, backend.name) } : {}),
  };
  const timeout = backend.connectTimeout;
  const connector = timedConnector(buildConnector({ ...tls, timeout, allowH2: backend.http2 }), { http2: backend.http2 });
  const agentOptions: Agent.Options = {
    connect: connector,
    connections: backend.maxConnections === 0 ? null : backend.maxConnections,
    allowH2: backend.http2,
    headersTimeout: backend.ttfbTimeout,
    // The backend's `timeout` is one deadline for the whole exchange, enforced by the client.
    bodyTimeout: 0,
  };
  const proxyOptions = {
    ...agentOptions,
    requestTls: { ...tls, timeout, ...(servername ? { servername } : {}) },
    proxyTls: { timeout },
  };
  const noProxyFromEnv = backend.noProxyFromEnv ?? settings.noProxyFromEnv;
  const envProxy = proxyFromEnv(env);
  let dispatcher: Dispatcher;
  let route: BackendTransport['route'];
  if (backend.proxy) {
    dispatcher = new ProxyAgent({ ...proxyOptions, uri: backend.proxy });
    route = 'proxy';
  } else if (!noProxyFromEnv && envProxy) {
    dispatcher = new EnvHttpProxyAgent({ ...proxyOptions, ...envProxy });
    route = 'env';
  } else {
    dispatcher = new Agent(agentOptions);
    route = 'direct';
  }
  return {
    dispatcher,
    servername,
    route,
    close: () => dispatcher.close().finally(() => connector.close()),
    destroy: () => dispatcher.destroy().finally(() => connector.close()),
  };
}

/** HTTP_PROXY / HTTPS_PROXY / NO_PROXY (lower case first, as curl reads them), or null when no proxy is set. */
export function proxyFromEnv(env: ProcessEnv): { httpProxy: string; httpsProxy: string; noProxy: string } | null {
  const read = (name: string) => env[name.toLowerCase()] ?? env[name.toUpperCase()] ?? '';
  const httpProxy = read('http_proxy');
  const httpsProxy = read('https_proxy') || httpProxy;
  if (!httpProxy && !httpsProxy) return null;
  return { httpProxy, httpsProxy, noProxy: read('no_proxy') };
}

/** The system roots plus a CA file, as one TLS context per file (building one parses every root). */
export class CaCache {
  readonly #contexts = new Map<string, SecureContext>();

  get(file: string, backend: string): SecureContext {
    let context = this.#contexts.get(file);
    if (!context) {
      let pem: string;
      try {
        pem = readFileSync(file, 'utf8');
      } catch (error) {
        throw new GatewayError('configuration', `backend "${backend}": cannot read ca_file ${file}: ${(error as Error).message}; fix the path or the file's permissions and reload`, { cause: error, source: backend });
      }
      try {
        // createSecureContext skips what it cannot parse; a CA file that adds nothing is a mistake to report.
        const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
        if (blocks.length === 0) throw new Error('no "BEGIN CERTIFICATE" block');
        for (const block of blocks) new X509Certificate(block);
        context = createSecureContext({ ca: [...rootCertificates, ...blocks] });
      } catch (error) {
        throw new GatewayError('configuration', `backend "${backend}": ca_file ${file} is not a PEM certificate: ${(error as Error).message}`, { cause: error, source: backend });
      }
      this.#contexts.set(file, context);
    }
    return context;
  }
}

/** `hostname` may carry a port (`api.example:8443`); SNI wants the name alone, and never an IP address (RFC 6066). */
export function hostOnly(hostname: string): string | null {
  const colon = hostname.lastIndexOf(':');
  const name = colon > 0 && hostname.indexOf(':') === colon ? hostname.slice(0, colon) : hostname;
  return name === '' || name.startsWith('[') || isIP(name) !== 0 ? null : name;
}
