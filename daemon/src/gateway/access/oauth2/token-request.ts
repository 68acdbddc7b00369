import type { OAuth2Client } from '../../config/model.js';
import { answerExcerpt, type AuthServerAnswer, type AuthServerRequest } from './auth-server.js';
import { PorticoError } from '../../../core/errors.js';

/** A token endpoint's successful answer (RFC 6749 §5.1), with whatever else the server added. */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type?: string;
  readonly expires_in?: number;
  readonly [field: string]: unknown;
}

/** The token endpoint refused or answered something unusable; `detail` says what, never the client secret. */
export class TokenRequestError extends PorticoError {
  override readonly name = 'TokenRequestError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('TOKEN_REQUEST_FAILED', message, options);
  }
}

/**
 * The token request of a grant: the grant's parameters plus the client's credentials,
 * in the Authorization header (client_secret_basic, RFC 6749 §2.3.1: each part
 * form-encoded) or in the body (client_secret_post). Accept: application/json is set; a
 * backend's request header modifiers may change it.
 */
export function tokenRequest(client: OAuth2Client, tokenEndpoint: string, params: Readonly<Record<string, string>>, handler: string, requestId: string): AuthServerRequest {
  const form = new URLSearchParams(params);
  if (client.scope !== null && !form.has('scope')) form.set('scope', client.scope);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (client.authMethod === 'client_secret_post') {
    form.set('client_id', client.clientId);
    form.set('client_secret', client.clientSecret);
  } else {
    const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
    headers['authorization'] = `Basic ${Buffer.from(`${encode(client.clientId)}:${encode(client.clientSecret)}`).toString('base64')}`;
  }
  // Sorted, as the peer sends them: servers and tests see one stable body.
  form.sort();
  return { method: 'POST', url: new URL(tokenEndpoint), headers, form, handler, requestId };
}

/** The token response, or a TokenRequestError naming the status and the server's error code. */
export function parseTokenAnswer(answer: AuthServerAnswer, tokenEndpoint: string): TokenResponse {
  const json = answer.json;
  const object = json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
  if (answer.status !== 200) {
    const error = object && typeof object['error'] === 'string' ? `: ${object['error']}${typeof object['error_description'] === 'string' ? ` (${object['error_description']})` : ''}` : answer.body.length > 0 ? `: ${answerExcerpt(answer)}` : '';
    throw new TokenRequestError(`token endpoint ${tokenEndpoint} answered ${answer.status}${error}`);
  }
  if (!object) throw new TokenRequestError(`token endpoint ${tokenEndpoint} answered no JSON object: ${answerExcerpt(answer)}`);
  const token = object['access_token'];
  if (typeof token !== 'string' || token === '') throw new TokenRequestError(`token endpoint ${tokenEndpoint} answered no access_token`);
  const expiresIn = object['expires_in'];
  if (expiresIn !== undefined && (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn))) {
    // Some servers send it as a string; a number is what the spec says and what expressions expect.
    const parsed = typeof expiresIn === 'string' && /^\d+$/.test(expiresIn) ? Number(expiresIn) : undefined;
    return { ...object, access_token: token, ...(parsed === undefined ? {} : { expires_in: parsed }) } as TokenResponse;
  }
  return object as TokenResponse;
}
