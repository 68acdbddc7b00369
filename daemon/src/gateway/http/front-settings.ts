/*
 * The gateway front's limits and timeouts, read from PORTICO_GATEWAY_* variables: the spec's
 * `settings` block has no such attributes (the peer takes its timings from the command line
 * and environment too), and a configuration that sets them would not load in the peer.
 */
import { z } from 'zod';
import { parseDuration } from '../../core/duration.js';
import { EnvironmentError } from '../../core/errors.js';

export interface GatewayFrontSettings {
  /** Time from a request's first byte until its header block has arrived (slowloris defence). */
  readonly headerTimeoutMs: number;
  /** Time from a request's first byte until its body has arrived completely. */
  readonly bodyTimeoutMs: number;
  /** How long a keep-alive connection may wait for its next request. */
  readonly idleTimeoutMs: number;
  /** Client connections held at once over all gateway listeners; more are closed at once. */
  readonly maxConnections: number;
  /** Bytes of the request line and headers together (431 past it). */
  readonly maxHeaderBytes: number;
  /** Bytes of the request target (414 past it). */
  readonly maxUrlBytes: number;
}

export const DEFAULT_GATEWAY_FRONT: GatewayFrontSettings = {
  headerTimeoutMs: 10_000,
  bodyTimeoutMs: 300_000,
  idleTimeoutMs: 60_000,
  maxConnections: 4096,
  maxHeaderBytes: 32 * 1024,
  maxUrlBytes: 8 * 1024,
};

const text = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const duration = (name: string) =>
  text.transform((v, ctx) => {
    if (v === undefined) return undefined;
    try {
      const ms = parseDuration(v, name);
      if (ms >= 1) return ms;
      ctx.addIssue({ code: 'custom', message: `'${v}' is too short; give at least 1ms` });
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message.replace(`${name}: `, '') : String(error) });
    }
    return z.NEVER;
  });

const count = (min: number, max: number) =>
  text.transform((v, ctx) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    ctx.addIssue({ code: 'custom', message: `must be an integer from ${min} to ${max}, got '${v}'` });
    return z.NEVER;
  });

const frontEnvSchema = z.object({
  PORTICO_GATEWAY_HEADER_TIMEOUT: duration('PORTICO_GATEWAY_HEADER_TIMEOUT'),
  PORTICO_GATEWAY_BODY_TIMEOUT: duration('PORTICO_GATEWAY_BODY_TIMEOUT'),
  PORTICO_GATEWAY_IDLE_TIMEOUT: duration('PORTICO_GATEWAY_IDLE_TIMEOUT'),
  PORTICO_GATEWAY_MAX_CONNECTIONS: count(1, 1_000_000),
  PORTICO_GATEWAY_MAX_HEADER_SIZE: count(1024, 1024 * 1024),
  PORTICO_GATEWAY_MAX_URL_LENGTH: count(256, 1024 * 1024),
});

/**
 * The PORTICO_GATEWAY_* variables with the defaults filled in. Throws an EnvironmentError naming
 * every bad variable; a body timeout shorter than the header timeout is refused (it could never be met).
 */
export function readGatewayFrontSettings(env: NodeJS.ProcessEnv): GatewayFrontSettings {
  const parsed = frontEnvSchema.safeParse(env);
  if (!parsed.success) throw new EnvironmentError(parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`));
  const e = parsed.data;
  const d = DEFAULT_GATEWAY_FRONT;
  const settings: GatewayFrontSettings = {
    headerTimeoutMs: e.PORTICO_GATEWAY_HEADER_TIMEOUT ?? d.headerTimeoutMs,
    bodyTimeoutMs: e.PORTICO_GATEWAY_BODY_TIMEOUT ?? d.bodyTimeoutMs,
    idleTimeoutMs: e.PORTICO_GATEWAY_IDLE_TIMEOUT ?? d.idleTimeoutMs,
    maxConnections: e.PORTICO_GATEWAY_MAX_CONNECTIONS ?? d.maxConnections,
    maxHeaderBytes: e.PORTICO_GATEWAY_MAX_HEADER_SIZE ?? d.maxHeaderBytes,
    maxUrlBytes: e.PORTICO_GATEWAY_MAX_URL_LENGTH ?? d.maxUrlBytes,
  };
  if (settings.bodyTimeoutMs < settings.headerTimeoutMs) {
    throw new EnvironmentError([
      `PORTICO_GATEWAY_BODY_TIMEOUT: ${settings.bodyTimeoutMs}ms is shorter than PORTICO_GATEWAY_HEADER_TIMEOUT (${settings.headerTimeoutMs}ms); the body timeout counts from the request's first byte, so it must be at least the header timeout`,
    ]);
  }
  return settings;
}
