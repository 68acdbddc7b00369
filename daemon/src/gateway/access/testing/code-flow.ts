/**
 * The browser's side of an authorization code login, over real HTTP, for the beta_oauth2 and
 * oidc tests: the gateway's login endpoint (redirect + verifier cookie), the sign-in at the
 * provider, and the callback back to the gateway with the cookie.
 */
import type { OidcProviderHandle } from '../../../testing/login-providers/index.js';

export interface LoginStart {
  /** The authorization request URL the gateway redirected to. */
  readonly authorization: URL;
  /** The verifier the gateway stored in the cookie. */
  readonly verifier: string;
}

/** GET the gateway's login endpoint; `cookie` names the cookie holding oauth2_verifier(). */
export async function startLogin(port: number, cookie: string, init: RequestInit = {}, path = '/login'): Promise<LoginStart> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, redirect: 'manual' });
  if (res.status !== 303) throw new Error(`${path} answered ${res.status}, not the 303 to the provider`);
  const verifier = new RegExp(`${cookie}=([^;]+)`).exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
  return { authorization: new URL(res.headers.get('location') ?? ''), verifier };
}

/** Signs `username` in at the provider with the parameters of the gateway's authorization URL; returns the redirect back to the gateway. */
export async function signIn(op: OidcProviderHandle, authorization: URL, username: string, password: string): Promise<string> {
  const q = authorization.searchParams;
  const optional = (name: string): string | undefined => q.get(name) ?? undefined;
  const result = await op.authorize({
    clientId: q.get('client_id') ?? '',
    redirectUri: q.get('redirect_uri') ?? '',
    scope: q.get('scope') ?? '',
    ...(optional('state') ? { state: optional('state') } : {}),
    ...(optional('nonce') ? { nonce: optional('nonce') } : {}),
    ...(optional('code_challenge') ? { codeChallenge: optional('code_challenge'), codeChallengeMethod: optional('code_challenge_method') } : {}),
    username,
    password,
  });
  return result.redirect;
}

/** Follows the provider's redirect to the gateway's callback, with the verifier cookie. */
export function callback(port: number, redirect: string, cookie: string, verifier: string, init: RequestInit = {}): Promise<Response> {
  const url = new URL(redirect);
  return fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, { ...init, headers: { cookie: `${cookie}=${verifier}`, ...(init.headers as Record<string, string> | undefined) } });
}
