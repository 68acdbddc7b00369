import { resolve } from 'node:path';
import { z } from 'zod';
import { parseDuration } from './duration.js';
import { EnvironmentError } from './errors.js';
import { LOG_LEVELS, type LogFormat, type LogLevel } from './logger.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** Everything the daemon reads from its environment, validated once at start. */
export interface DaemonSettings {
  dataDir: string;
  databaseUrl: string | undefined;
  control: ListenAddress;
  /** Internal services HTTP (infosessions, ingest API, discovery HTTP form). */
  services: ListenAddress;
  /** Cluster discovery gRPC. */
  cds: ListenAddress;
  controlToken: string | undefined;
  shutdownDelayMs: number;
  shutdownTimeoutMs: number;
  logFormat: LogFormat;
  logLevel: LogLevel;
}

export const DEFAULT_CONTROL_ADDR = '127.0.0.1:9901';
export const DEFAULT_SERVICES_ADDR = '127.0.0.1:9080';
export const DEFAULT_CDS_ADDR = '127.0.0.1:18000';

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const envSchema = z.object({
  PORTICO_DATA_DIR: optionalText,
  PORTICO_DATABASE_URL: optionalText,
  PORTICO_CONTROL_ADDR: optionalText,
  PORTICO_CONTROL_TOKEN: optionalText,
  PORTICO_SERVICES_ADDR: optionalText,
  PORTICO_CDS_ADDR: optionalText,
  PORTICO_SHUTDOWN_DELAY: optionalText,
  PORTICO_SHUTDOWN_TIMEOUT: optionalText,
  PORTICO_LOG_FORMAT: optionalText.pipe(z.enum(['common', 'json']).optional()),
  PORTICO_LOG_LEVEL: optionalText.pipe(z.enum(LOG_LEVELS as [LogLevel, ...LogLevel[]]).optional()),
});

/** Reads the daemon's own variables; `overrides` are command-line flags, which win. Throws an EnvironmentError listing every problem. */
export function readSettings(env: NodeJS.ProcessEnv, overrides: { dataDir?: string | undefined } = {}): DaemonSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
    throw new EnvironmentError(lines);
  }
  const e = parsed.data;
  return {
    dataDir: resolve(overrides.dataDir ?? e.PORTICO_DATA_DIR ?? 'data'),
    databaseUrl: e.PORTICO_DATABASE_URL,
    control: parseListenAddress(e.PORTICO_CONTROL_ADDR ?? DEFAULT_CONTROL_ADDR, 'PORTICO_CONTROL_ADDR'),
    services: parseListenAddress(e.PORTICO_SERVICES_ADDR ?? DEFAULT_SERVICES_ADDR, 'PORTICO_SERVICES_ADDR'),
    cds: parseListenAddress(e.PORTICO_CDS_ADDR ?? DEFAULT_CDS_ADDR, 'PORTICO_CDS_ADDR'),
    controlToken: e.PORTICO_CONTROL_TOKEN,
    shutdownDelayMs: e.PORTICO_SHUTDOWN_DELAY ? parseDuration(e.PORTICO_SHUTDOWN_DELAY, 'PORTICO_SHUTDOWN_DELAY') : 0,
    shutdownTimeoutMs: e.PORTICO_SHUTDOWN_TIMEOUT ? parseDuration(e.PORTICO_SHUTDOWN_TIMEOUT, 'PORTICO_SHUTDOWN_TIMEOUT') : 5000,
    logFormat: e.PORTICO_LOG_FORMAT ?? 'common',
    logLevel: e.PORTICO_LOG_LEVEL ?? 'info',
  };
}

/** `host:port`, `[v6]:port` or `:port` (all interfaces). */
export function parseListenAddress(text: string, what: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) {
    throw new Error(`${what}: '${text}' is not a listen address; write host:port, e.g. 127.0.0.1:9901 or [::1]:9901`);
  }
  const host = match[1] ?? match[2] ?? '';
  return { host: host === '' || host === '*' ? '0.0.0.0' : host, port };
}

export function formatAddress({ host, port }: ListenAddress): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
