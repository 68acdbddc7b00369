import type { BetaOAuth2Config, GatewayConfig, OidcConfig } from '../../config/model.js';
import type { BackendSet } from '../../contracts.js';
import { GatewayError } from '../../errors/error-types.js';
import { evalDyn } from '../../eval/eval-dyn.js';
import type { AccessRequest } from '../access-check.js';
import { AuthServerError, callAuthServer } from './auth-server.js';
import { resolveCallbackUrl } from './callback-url.js';
import { parseTokenAnswer, tokenRequest, TokenRequestError, type TokenResponse } from './token-request.js';

/** What both authorization code controls share: their configuration and the gateway's backends. */
export interface CodeFlowDeps {
  readonly gateway: GatewayConfig;
  readonly backends: BackendSet;
}

/** Failures at the provider, for the consoles: the last one and when. */
export class ProviderErrors {
  lastError: string | null = null;
  lastErrorAt: number | null = null;

  record(error: unknown): void {
    this.lastError = error instanceof Error ? error.message : String(error);
    this.lastErrorAt = Date.now();
  }

  clear(): void {
    this.lastError = null;
    this.lastErrorAt = null;
  }
}

/** The error every refusal of these controls is: `oauth2` (403), for the control's error handlers. */
export function oauth2Error(config: BetaOAuth2Config | OidcConfig, detail: string, cause?: unknown): GatewayError {
  return new GatewayError('oauth2', `${config.kind} "${config.label}": ${detail}`, { source: config.label, cause });
}

/**
 * The redirect endpoint's request: a GET with `code` (an `error` from the authorization
 * server, or no code, is a refusal that names what came instead).
 */
export function callbackCode(config: BetaOAuth2Config | OidcConfig, request: AccessRequest): string {
  const { method, url } = request.scope.request;
  if (method !== 'GET') throw oauth2Error(config, `wrong method: ${method} (the authorization server redirects with GET)`);
  const query = url.searchParams;
  const error = query.get('error');
  if (error !== null) {
    const description = query.get('error_description');
    throw oauth2Error(config, `the authorization server answered error ${JSON.stringify(error)}${description ? ` (${description})` : ''}`);
  }
  const code = query.get('code');
  if (code === null || code === '') throw oauth2Error(config, `missing code query parameter; query=${JSON.stringify(url.search.replace(/^\?/, ''))}`);
  return code;
}

/** verifier_value for this request, trimmed; empty is a refusal (no cookie: the flow did not start here). */
export function verifierValue(config: BetaOAuth2Config | OidcConfig, request: AccessRequest): string {
  const value = evalDyn<string>(config.verifierValue, request.scope);
  const verifier = typeof value === 'string' ? value.trim() : '';
  if (verifier === '') throw oauth2Error(config, 'verifier_value is empty (was the login started here, with oauth2_verifier() stored for this request?)');
  return verifier;
}

/** Exchanges the code at the token endpoint; provider failures are recorded and refuse the request as `oauth2`. */
export async function exchangeCode(
  config: BetaOAuth2Config | OidcConfig,
  deps: CodeFlowDeps,
  request: AccessRequest,
  exchange: { tokenEndpoint: string; backend: string; code: string; codeVerifier: string | null },
  errors: ProviderErrors,
): Promise<TokenResponse> {
  const params: Record<string, string> = { grant_type: 'authorization_code', code: exchange.code, redirect_uri: resolveCallbackUrl(config.redirectUri, request.scope.request.url) };
  if (exchange.codeVerifier !== null) params['code_verifier'] = exchange.codeVerifier;
  const outgoing = tokenRequest(config.client, exchange.tokenEndpoint, params, `${config.kind}:token:${config.label}`, request.scope.request.id);
  try {
    const answer = await callAuthServer(deps.gateway, deps.backends, exchange.backend, outgoing, request.scope, request.signal);
    return parseTokenAnswer(answer, exchange.tokenEndpoint);
  } catch (error) {
    if (!(error instanceof AuthServerError) && !(error instanceof TokenRequestError)) throw error;
    errors.record(error);
    throw oauth2Error(config, `requesting the token failed: ${error.message}`, error);
  }
}
