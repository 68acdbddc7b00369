import type { RequestScope } from '../eval/request-scope.js';

/** What an access control reads of a request. */
export interface AccessRequest {
  /** Lower-case names, as received. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** For token_value and claims expressions. */
  readonly scope: RequestScope;
  readonly signal: AbortSignal;
}

/** What an access control grants a request that passes it. */
export interface AccessGrant {
  /** `request.context.<label>`: the claims of a jwt, `{ user }` of basic_auth. */
  readonly context: unknown;
  readonly permissions: readonly string[];
  /** The authenticated user for the access line (`auth_user`), when known. */
  readonly user: string | null;
}

/** One access control of `definitions`, ready to check requests; rejects with an access-control GatewayError. */
export interface AccessCheck {
  readonly label: string;
  readonly kind: 'basic_auth' | 'jwt' | 'beta_oauth2' | 'oidc' | 'saml';
  validate(request: AccessRequest): Promise<AccessGrant>;
}

/** What the consoles show of a login control's provider: where it is and its last failure (never a secret). */
export interface LoginStatus {
  readonly label: string;
  readonly kind: 'beta_oauth2' | 'oidc' | 'saml';
  /** The provider: the authorization server's, OpenID configuration's or SAML IdP's URL or entity id. */
  readonly provider: string;
  /** The last failure talking to the provider (or reading its answer), with its time; null when the last attempt worked. */
  readonly lastError: string | null;
  readonly lastErrorAt: number | null;
  /** oidc: epoch ms of the configuration in use; null before the first fetch. */
  readonly configurationFetchedAt: number | null;
  /** oidc: a refresh failed and the cached configuration still serves. */
  readonly usingCachedConfiguration: boolean;
}

/** An access control that signs users in at a provider, and the login URL function its label configures. */
export interface LoginCheck extends AccessCheck {
  readonly kind: 'beta_oauth2' | 'oidc' | 'saml';
  status(): LoginStatus;
  /**
   * `oauth2_authorization_url(label)` / `saml_sso_url(label)`: synchronous, since HCL
   * functions are; throws a GatewayError when the URL cannot be built (an oidc whose
   * configuration is not loaded).
   */
  loginUrl(verifier: () => string, requestUrl: URL): string;
  /** Loads what loginUrl needs when it is missing (oidc: the configuration); never rejects. */
  prepare(signal: AbortSignal): Promise<void>;
  /** Stops background work (a reload replaced the configuration). */
  close(): void;
}
