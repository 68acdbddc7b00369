import { PorticoError } from '../../../core/errors.js';
import { parseUrl } from '../../../core/parse-url.js';

/** The parts of an OpenID Provider's configuration (OpenID Connect Discovery 1.0 §3) the gateway uses. */
export interface OidcProviderMetadata {
  readonly issuer: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly jwks_uri: string;
  readonly userinfo_endpoint: string | null;
  readonly code_challenge_methods_supported: readonly string[];
}

export interface OidcConfigurationOptions {
  readonly fetch: (signal: AbortSignal) => Promise<unknown>;
  readonly ttlMs: number;
  readonly maxStaleMs: number;
  /** After a failed fetch, requests do not wait for another one before this long. */
  readonly retryAfterMs?: number;
  readonly now?: () => number;
}

/** What the consoles show of a provider's configuration (never a secret). */
export interface OidcConfigurationStatus {
  readonly fetchedAt: number | null;
  readonly lastError: string | null;
  readonly lastErrorAt: number | null;
  /** A fetch failed after one succeeded: the cached configuration serves until it is older than ttl + max stale. */
  readonly usingCached: boolean;
}

/** The configuration could not be fetched and none is cached (or the cached one is too old). */
export class OidcConfigurationError extends PorticoError {
  override readonly name = 'OidcConfigurationError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('OIDC_CONFIGURATION_UNAVAILABLE', message, options);
  }
}

/**
 * An OpenID Provider's configuration, fetched once and kept: fresh for the TTL, then still
 * served for max stale while a refresh runs in the background; one fetch in flight at a
 * time; after a failure, requests wait for no new fetch until retryAfter has passed.
 */
export class OidcConfigurationCache {
  readonly #options: Required<Omit<OidcConfigurationOptions, 'now'>> & { now: () => number };
  #metadata: OidcProviderMetadata | null = null;
  #fetchedAt: number | null = null;
  #inFlight: Promise<OidcProviderMetadata> | null = null;
  #lastError: string | null = null;
  #lastErrorAt: number | null = null;
  readonly #stop = new AbortController();

  constructor(options: OidcConfigurationOptions) {
    this.#options = { retryAfterMs: 5_000, now: Date.now, ...options };
  }

  status(): OidcConfigurationStatus {
    const failingSince = this.#lastErrorAt !== null && (this.#fetchedAt === null || this.#lastErrorAt > this.#fetchedAt);
    return { fetchedAt: this.#fetchedAt, lastError: failingSince ? this.#lastError : null, lastErrorAt: failingSince ? this.#lastErrorAt : null, usingCached: failingSince && this.#usable() !== null };
  }

  /** The configuration if one is usable now (fresh or within max stale); starts a refresh when it is past its TTL. */
  current(): OidcProviderMetadata | null {
    const usable = this.#usable();
    if (usable !== null && this.#age() > this.#options.ttlMs) void this.#refresh().catch(() => undefined);
    return usable;
  }

  /** The configuration, fetching it when none is usable; rejects with OidcConfigurationError. */
  async get(signal: AbortSignal): Promise<OidcProviderMetadata> {
    const usable = this.current();
    if (usable !== null) return usable;
    return abortable(this.#refresh(), signal);
  }

  /** Fetches when nothing is usable and the last failure is older than retryAfter; never rejects. */
  async prepare(signal: AbortSignal): Promise<void> {
    if (this.current() !== null || this.#coolingDown()) return;
    await abortable(this.#refresh(), signal).catch(() => undefined);
  }

  /** Stops a fetch in flight (the configuration was replaced by a reload). */
  close(): void {
    this.#stop.abort();
  }

  #usable(): OidcProviderMetadata | null {
    if (this.#metadata === null) return null;
    return this.#age() <= this.#options.ttlMs + this.#options.maxStaleMs ? this.#metadata : null;
  }

  #age(): number {
    return this.#fetchedAt === null ? Infinity : this.#options.now() - this.#fetchedAt;
  }

  #coolingDown(): boolean {
    return this.#lastErrorAt !== null && this.#options.now() - this.#lastErrorAt < this.#options.retryAfterMs && (this.#fetchedAt === null || this.#lastErrorAt > this.#fetchedAt);
  }

  #refresh(): Promise<OidcProviderMetadata> {
    if (this.#inFlight) return this.#inFlight;
    const run = (async () => {
      try {
        const metadata = parseProviderMetadata(await this.#options.fetch(this.#stop.signal));
        this.#metadata = metadata;
        this.#fetchedAt = this.#options.now();
        return metadata;
      } catch (error) {
        this.#lastError = error instanceof Error ? error.message : String(error);
        this.#lastErrorAt = this.#options.now();
        const usable = this.#usable();
        if (usable !== null) return usable;
        throw new OidcConfigurationError(`the OpenID configuration is unavailable: ${this.#lastError}`, { cause: error });
      } finally {
        this.#inFlight = null;
      }
    })();
    this.#inFlight = run;
    return run;
  }
}

/** Checks the fields the flow needs; a provider answering something else is a clear error, not a later TypeError. */
export function parseProviderMetadata(body: unknown): OidcProviderMetadata {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('the configuration is not a JSON object');
  const doc = body as Record<string, unknown>;
  const url = (name: string, required: boolean): string | null => {
    const value = doc[name];
    if (value === undefined || value === null) {
      if (required) throw new Error(`the configuration has no ${name}`);
      return null;
    }
    if (typeof value !== 'string' || parseUrl(value) === null) throw new Error(`the configuration's ${name} is not a URL: ${JSON.stringify(value)}`);
    return value;
  };
  const issuer = doc['issuer'];
  if (typeof issuer !== 'string' || issuer === '') throw new Error('the configuration has no issuer');
  const methods = doc['code_challenge_methods_supported'];
  return {
    issuer,
    authorization_endpoint: url('authorization_endpoint', true) as string,
    token_endpoint: url('token_endpoint', true) as string,
    jwks_uri: url('jwks_uri', true) as string,
    userinfo_endpoint: url('userinfo_endpoint', false),
    code_challenge_methods_supported: Array.isArray(methods) ? methods.filter((m): m is string => typeof m === 'string') : [],
  };
}

/** Waits for `promise` unless the caller's signal aborts first (the shared fetch goes on for others). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
