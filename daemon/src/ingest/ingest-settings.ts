import { z } from 'zod';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, type RetrySchedule } from './backoff.js';
import { callbackHeadersSchema, callbackSecretSchema, callbackUrlSchema } from './callback-config.js';
import type { CallbackConfig } from './types.js';

/** The SERVICE_* environment of the ingest area, validated once at install. */
export interface IngestSettings {
  defaultCallback: CallbackConfig | null;
  pollIntervalMs: number;
  batchSize: number;
  requestTimeoutMs: number;
  /** Host names (lower case) exempt from the private-address guard. */
  allowHosts: ReadonlySet<string>;
  caFile: string | undefined;
  /** Waits before each attempt of a round; its length is the attempts before DEAD. */
  retrySchedule: RetrySchedule;
  retentionDays: number;
  retentionIntervalMs: number;
  uploadMaxBytes: number;
  ingestPollIntervalMs: number;
  ingestLeaseMs: number;
}

const text = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** A number variable within bounds; unset gives the fallback. */
const number = (fallback: number, min: number, max: number, integer = false) =>
  text.transform((v, ctx) => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
      ctx.addIssue({ code: 'custom', message: `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}` });
      return z.NEVER;
    }
    return n;
  });

const seconds = (fallback: number, max: number) => number(fallback, 0.001, max).transform((v) => Math.round(v * 1000));

const retrySchedule = text.transform((v, ctx): RetrySchedule => {
  if (v === undefined) return DEFAULT_RETRY_SCHEDULE;
  try {
    return parseRetrySchedule(v);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
    return z.NEVER;
  }
});

const envSchema = z.object({
  SERVICE_DEFAULT_CALLBACK_URL: text.pipe(callbackUrlSchema.optional()),
  SERVICE_DEFAULT_CALLBACK_SECRET: text.pipe(callbackSecretSchema.optional()),
  SERVICE_DEFAULT_CALLBACK_HEADERS: text.transform((v, ctx) => parseJsonObject(v, ctx)).pipe(callbackHeadersSchema.optional()),
  SERVICE_CALLBACK_POLL_INTERVAL_S: seconds(5, 3600),
  SERVICE_CALLBACK_BATCH_SIZE: number(25, 1, 1000, true),
  SERVICE_CALLBACK_REQUEST_TIMEOUT_S: seconds(10, 600),
  SERVICE_CALLBACK_ALLOW_HOSTS: text.transform((v) => new Set((v ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)) as ReadonlySet<string>),
  SERVICE_CALLBACK_CA_FILE: text,
  SERVICE_CALLBACK_RETRY_SCHEDULE: retrySchedule,
  SERVICE_RETENTION_DAYS: number(30, 0.0001, 36500),
  SERVICE_RETENTION_INTERVAL_S: seconds(3600, 86400 * 7),
  SERVICE_UPLOAD_MAX_BYTES: number(50 * 1024 * 1024, 1, 2 ** 31, true),
  SERVICE_INGEST_POLL_INTERVAL_S: seconds(1, 3600),
  SERVICE_INGEST_LEASE_S: seconds(300, 86400),
});

function parseJsonObject(value: string | undefined, ctx: z.RefinementCtx): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not valid JSON; write a JSON object such as {"Authorization":"Bearer ..."}' });
    return z.NEVER;
  }
}

/** Throws one message naming every bad variable (never its value: some hold secrets). */
export function readIngestSettings(env: NodeJS.ProcessEnv): IngestSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
    throw new Error(`bad environment for the ingest service:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if (!e.SERVICE_DEFAULT_CALLBACK_URL && (e.SERVICE_DEFAULT_CALLBACK_SECRET || e.SERVICE_DEFAULT_CALLBACK_HEADERS)) {
    throw new Error('bad environment for the ingest service:\n  SERVICE_DEFAULT_CALLBACK_SECRET/SERVICE_DEFAULT_CALLBACK_HEADERS are set but SERVICE_DEFAULT_CALLBACK_URL is not');
  }
  return {
    defaultCallback: e.SERVICE_DEFAULT_CALLBACK_URL
      ? { url: e.SERVICE_DEFAULT_CALLBACK_URL, secret: e.SERVICE_DEFAULT_CALLBACK_SECRET ?? null, headers: e.SERVICE_DEFAULT_CALLBACK_HEADERS ?? {} }
      : null,
    pollIntervalMs: e.SERVICE_CALLBACK_POLL_INTERVAL_S,
    batchSize: e.SERVICE_CALLBACK_BATCH_SIZE,
    requestTimeoutMs: e.SERVICE_CALLBACK_REQUEST_TIMEOUT_S,
    allowHosts: e.SERVICE_CALLBACK_ALLOW_HOSTS,
    caFile: e.SERVICE_CALLBACK_CA_FILE,
    retrySchedule: e.SERVICE_CALLBACK_RETRY_SCHEDULE,
    retentionDays: e.SERVICE_RETENTION_DAYS,
    retentionIntervalMs: e.SERVICE_RETENTION_INTERVAL_S,
    uploadMaxBytes: e.SERVICE_UPLOAD_MAX_BYTES,
    ingestPollIntervalMs: e.SERVICE_INGEST_POLL_INTERVAL_S,
    ingestLeaseMs: e.SERVICE_INGEST_LEASE_S,
  };
}
