import type { Agent } from 'undici';
import { literalTargetRefusal } from './address-guard.js';
import { RESERVED_CALLBACK_HEADERS } from './callback-config.js';
import { callbackAgent, type CallbackAgentOptions } from './callback-connections.js';
import { CallbackRequest, CallbackRequestAborted, type CallbackTarget } from './callback-request.js';
import { parseUrl } from '../core/parse-url.js';
import type { AttemptOutcome, ClaimedRow } from './outbox.js';
import type { OutboxRow } from './records.js';
import { serviceSignature, standardWebhookSignature } from './signing.js';

export const CALLBACK_USER_AGENT = 'service-callback/26';

export interface CallbackSenderOptions extends CallbackAgentOptions {
  /** The worker's clock (epoch ms): an attempt's start and end are read from the same one. */
  clock?: () => number;
}

/** The request headers of one attempt: custom ones first, the service's own last. */
export function callbackHeaders(row: Pick<OutboxRow, 'id' | 'ingest_job_id' | 'event_type' | 'callback_secret' | 'callback_headers'>, body: string, attemptAt: number): Record<string, string> {
  const headers: Record<string, string> = {};
  const custom = JSON.parse(row.callback_headers) as Record<string, string>;
  for (const [name, value] of Object.entries(custom)) {
    // Validation refuses these already; rows written before a rule change must not override either.
    if (!(RESERVED_CALLBACK_HEADERS as readonly string[]).includes(name.toLowerCase())) headers[name] = value;
  }
  const timestamp = Math.floor(attemptAt / 1000);
  headers['content-type'] = 'application/json';
  headers['user-agent'] = CALLBACK_USER_AGENT;
  headers['x-service-event'] = row.event_type;
  headers['x-service-job-id'] = row.ingest_job_id;
  headers['webhook-id'] = row.id;
  headers['webhook-timestamp'] = String(timestamp);
  if (row.callback_secret) {
    headers['x-service-signature'] = serviceSignature(row.callback_secret, body);
    headers['webhook-signature'] = standardWebhookSignature(row.callback_secret, row.id, timestamp, body);
  }
  return headers;
}

/** POSTs outbox rows to their receivers: HTTPS only, no redirects, guarded addresses, one timeout per attempt. */
export class CallbackSender {
  readonly #agent: Agent;
  readonly #timeoutMs: number;
  readonly #allowHosts: ReadonlySet<string>;
  readonly #clock: () => number;
  readonly #active = new Set<CallbackRequest>();
  readonly #targets = new Map<string, CallbackTarget | string>();
  #stopped = false;

  constructor({ timeoutMs, allowHosts, extraCa, clock = Date.now, connectionsPerOrigin }: CallbackSenderOptions) {
    this.#clock = clock;
    this.#timeoutMs = timeoutMs;
    this.#allowHosts = allowHosts;
    this.#agent = callbackAgent({ timeoutMs, allowHosts, extraCa, connectionsPerOrigin });
  }

  /** One attempt; never throws. `abortAll` aborts it (the caller then releases the row, no attempt counted). */
  async send(row: ClaimedRow, attemptAt: number): Promise<AttemptOutcome> {
    // Same clock as attemptAt, so startedAt + durationMs is never later than the worker's "now" after it.
    const outcome = (ok: boolean, statusCode: number | null, error: string | null, responseBody: string | null): AttemptOutcome => ({
      startedAt: attemptAt,
      durationMs: Math.max(0, this.#clock() - attemptAt),
      statusCode,
      error,
      responseBody,
      ok,
    });
    const target = this.#target(row.callback_url);
    if (typeof target === 'string') return outcome(false, null, target, null);
    const body = row.payload;
    const request = new CallbackRequest(this.#agent, target, callbackHeaders(row, body, attemptAt), body, this.#timeoutMs);
    this.#active.add(request);
    if (this.#stopped) request.abort('stopped');
    try {
      const { statusCode, snippet } = await request.done;
      const ok = statusCode >= 200 && statusCode < 300;
      return outcome(ok, statusCode, ok ? null : `receiver answered HTTP ${statusCode}`, snippet);
    } catch (error) {
      const message = error instanceof CallbackRequestAborted && error.code === 'ERR_CALLBACK_TIMEOUT' ? `timeout: no answer within ${this.#timeoutMs} ms` : describeError(error);
      return outcome(false, null, message, null);
    } finally {
      this.#active.delete(request);
    }
  }

  /**
   * Where a callback URL's requests go, or why none goes there. A worker sends to a few receivers
   * over and over: each URL is parsed and checked once (the allowed hosts are fixed for the
   * sender's life) and kept, up to TARGETS_KEPT of them.
   */
  #target(callbackUrl: string): CallbackTarget | string {
    let target = this.#targets.get(callbackUrl);
    if (target === undefined) {
      target = callbackTarget(callbackUrl, this.#allowHosts);
      if (this.#targets.size >= TARGETS_KEPT) this.#targets.delete(this.#targets.keys().next().value!);
      this.#targets.set(callbackUrl, target);
    }
    return target;
  }

  /** Aborts every attempt in flight, and those started later (a stopping worker then releases their rows). */
  abortAll(): void {
    this.#stopped = true;
    for (const request of this.#active) request.abort('stopped');
  }

  async close(): Promise<void> {
    await this.#agent.close().catch(() => {});
  }
}

/** Callback URLs whose targets a sender keeps (the oldest goes first). */
const TARGETS_KEPT = 1024;

/** A callback URL's origin and request path, or the refusal an attempt to it records. */
function callbackTarget(callbackUrl: string, allowHosts: ReadonlySet<string>): CallbackTarget | string {
  const url = parseUrl(callbackUrl);
  if (url === null) return 'invalid callback URL';
  if (url.protocol !== 'https:') return 'refused: callback URLs must be https://';
  const refusal = literalTargetRefusal(url, allowHosts);
  if (refusal) return `refused: ${refusal}`;
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const code = (error as { code?: string }).code;
  // Node's socket errors name their code already ("connect ECONNREFUSED 127.0.0.1:443").
  const base = code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  return cause instanceof Error && !base.includes(cause.message) ? `${base} (${cause.message})` : base;
}
