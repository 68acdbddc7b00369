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
  readonly kind: 'basic_auth' | 'jwt';
  validate(request: AccessRequest): Promise<AccessGrant>;
}
