import { resolveCallbackUrl } from './callback-url.js';
import { s256 } from './pkce.js';

export interface AuthorizationRequest {
  readonly endpoint: string;
  readonly clientId: string;
  /** As configured: absolute, or a path resolved against the request's origin. */
  readonly redirectUri: string;
  readonly requestUrl: URL;
  readonly scope: string | null;
  /** How the verifier binds the code to this browser: a PKCE challenge, or its hash as state or nonce. */
  readonly method: 'ccm_s256' | 'state' | 'nonce';
  readonly verifier: string;
}

/** The authorization request URL of the code flow (RFC 6749 §4.1.1, RFC 7636 §4.3, OpenID Connect Core §3.1.2.1). */
export function authorizationUrl(request: AuthorizationRequest): string {
  const url = new URL(request.endpoint);
  const q = url.searchParams;
  q.set('response_type', 'code');
  q.set('client_id', request.clientId);
  q.set('redirect_uri', resolveCallbackUrl(request.redirectUri, request.requestUrl));
  if (request.scope !== null) q.set('scope', request.scope);
  if (request.method === 'ccm_s256') {
    q.set('code_challenge', s256(request.verifier));
    q.set('code_challenge_method', 'S256');
  } else q.set(request.method, s256(request.verifier));
  return url.href;
}
