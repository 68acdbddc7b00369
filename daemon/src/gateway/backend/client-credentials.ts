import type { Readable } from 'node:stream';
import type { BackendOAuth2Config } from '../config/model.js';
import type { BackendClient, BackendRequest, BackendResponse } from '../contracts.js';
import type { AuthServerAnswer, AuthServerRequest } from '../access/oauth2/auth-server.js';
import { parseTokenAnswer, tokenRequest, type TokenResponse } from '../access/oauth2/token-request.js';
import { discardBody } from '../endpoint/read-all.js';
import { GatewayError } from '../errors/error-types.js';

/** A token is renewed this long before its expires_in runs out (at most this share of its lifetime). */
const RENEW_BEFORE_MS = 60_000;
const RENEW_BEFORE_SHARE = 0.1;
const SHARED = new AbortController().signal;

export interface ClientCredentialsStatus {
  /** Epoch ms the current token was fetched; null when there is none. */
  readonly fetchedAt: number | null;
  /** Epoch ms it is renewed; null when the server gave no expires_in (renewed only on a 401). */
  readonly renewAt: number | null;
  readonly lastError: string | null;
}

/**
 * The client credentials grant of a backend's `oauth2` block: one token, fetched on first
 * need and shared by every request until shortly before its `expires_in`; concurrent
 * requests wait for the one token request in flight.
 */
export class ClientCredentialsToken {
  #token: string | null = null;
  #fetchedAt: number | null = null;
  #renewAt: number | null = null;
  #inFlight: Promise<string> | null = null;
  #lastError: string | null = null;

  constructor(
    private readonly config: BackendOAuth2Config,
    private readonly send: (request: AuthServerRequest, signal: AbortSignal) => Promise<AuthServerAnswer>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A valid token; rejects with GatewayError `beta_backend_token_request`. */
  async token(signal: AbortSignal): Promise<string> {
    if (this.#token !== null && (this.#renewAt === null || this.now() < this.#renewAt)) return this.#token;
    // Shared by every waiting request, so no one request's abort may cancel it; the backend's timeouts bound it.
    this.#inFlight ??= this.#fetch(SHARED).finally(() => (this.#inFlight = null));
    if (signal.aborted) throw new GatewayError('client_request', 'the client went away while the token was requested');
    return this.#inFlight;
  }

  /** The resource refused `token` (401): the next request fetches a new one. */
  invalidate(token: string): void {
    if (this.#token === token) this.#token = null;
  }

  status(): ClientCredentialsStatus {
    return { fetchedAt: this.#token === null ? null : this.#fetchedAt, renewAt: this.#token === null ? null : this.#renewAt, lastError: this.#lastError };
  }

  async #fetch(signal: AbortSignal): Promise<string> {
    let response: TokenResponse;
    try {
      const answer = await this.send(tokenRequest(this.config.client, this.config.tokenEndpoint, { grant_type: 'client_credentials' }, 'oauth2:client_credentials', 'oauth2-token'), signal);
      response = parseTokenAnswer(answer, this.config.tokenEndpoint);
    } catch (error) {
      this.#lastError = error instanceof Error ? error.message : String(error);
      throw new GatewayError('beta_backend_token_request', `token request failed: ${this.#lastError}`, { cause: error });
    }
    this.#lastError = null;
    const fetchedAt = this.now();
    const lifetime = typeof response.expires_in === 'number' && response.expires_in > 0 ? response.expires_in * 1000 : null;
    this.#token = response.access_token;
    this.#fetchedAt = fetchedAt;
    this.#renewAt = lifetime === null ? null : fetchedAt + lifetime - Math.min(RENEW_BEFORE_MS, lifetime * RENEW_BEFORE_SHARE);
    return response.access_token;
  }
}

/**
 * The backend's client with its oauth2 token: each request carries `Authorization:
 * Bearer <token>`; a 401 from the resource drops the token and retries with a new one, up
 * to `retries` times, when the request body can be sent again (a buffered one).
 */
export function withClientCredentials(client: BackendClient, config: BackendOAuth2Config, tokens: ClientCredentialsToken): BackendClient {
  return {
    config: client.config,
    send: async function sendWithToken(request: BackendRequest): Promise<BackendResponse> {
      const replayable = !isStream(request.body);
      for (let attempt = 0; ; attempt++) {
        let token: string;
        try {
          token = await tokens.token(request.signal);
        } catch (error) {
          if (error instanceof GatewayError) throw new GatewayError(error.kind, `backend "${client.config.name}": ${error.detail}`, { source: client.config.name, cause: error });
          throw error;
        }
        // A spread copies own properties only: `signal` may be a getter of the request's class.
        const response = await client.send({ ...request, signal: request.signal, headers: { ...request.headers, authorization: `Bearer ${token}` } });
        if (response.status !== 401 || attempt >= config.retries || !replayable) return response;
        discardBody(response.body);
        tokens.invalidate(token);
      }
    },
  };
}

function isStream(body: BackendRequest['body']): body is Readable {
  return body !== null && typeof body === 'object' && !Buffer.isBuffer(body);
}
