/**
 * The gateway's error types (docs/gateway.md, "Errors"): each has a super-type, a default
 * status and the synopsis the client sees. The detail goes to the log line only.
 */
import { PorticoError } from '../../core/errors.js';
import type { GatewayResponse } from '../contracts.js';

export const ERROR_TYPES = {
  access_control: { parent: null, status: 403, synopsis: 'access control error' },
  basic_auth: { parent: 'access_control', status: 401, synopsis: 'access control error' },
  basic_auth_credentials_missing: { parent: 'basic_auth', status: 401, synopsis: 'access control error' },
  jwt: { parent: 'access_control', status: 401, synopsis: 'access control error' },
  jwt_token_missing: { parent: 'jwt', status: 401, synopsis: 'access control error' },
  jwt_token_expired: { parent: 'jwt', status: 401, synopsis: 'access control error' },
  jwt_token_invalid: { parent: 'jwt', status: 401, synopsis: 'access control error' },
  oauth2: { parent: 'access_control', status: 403, synopsis: 'access control error' },
  saml: { parent: 'access_control', status: 403, synopsis: 'access control error' },
  beta_insufficient_permissions: { parent: 'access_control', status: 403, synopsis: 'access control error' },
  backend: { parent: null, status: 502, synopsis: 'backend error' },
  backend_timeout: { parent: 'backend', status: 504, synopsis: 'backend error' },
  backend_unhealthy: { parent: 'backend', status: 502, synopsis: 'backend error' },
  backend_openapi_validation: { parent: 'backend', status: 502, synopsis: 'backend error' },
  beta_backend_token_request: { parent: 'backend', status: 502, synopsis: 'backend error' },
  endpoint: { parent: null, status: 502, synopsis: 'endpoint error' },
  sequence: { parent: 'endpoint', status: 502, synopsis: 'endpoint error' },
  unexpected_status: { parent: 'endpoint', status: 502, synopsis: 'endpoint error' },
  // Not catchable by error_handler:
  client_request: { parent: null, status: 400, synopsis: 'client request error' },
  request_body_too_large: { parent: null, status: 413, synopsis: 'client request error' },
  route_not_found: { parent: null, status: 404, synopsis: 'route not found error' },
  method_not_allowed: { parent: null, status: 405, synopsis: 'method not allowed error' },
  configuration: { parent: null, status: 500, synopsis: 'configuration error' },
  evaluation: { parent: null, status: 500, synopsis: 'expression evaluation error' },
  server_shutdown: { parent: null, status: 500, synopsis: 'server shutdown error' },
} as const satisfies Record<string, { parent: string | null; status: number; synopsis: string }>;

export type GatewayErrorKind = keyof typeof ERROR_TYPES;

/** Types an error_handler label may name (besides `*`). */
export const CATCHABLE_KINDS: readonly GatewayErrorKind[] = [
  'access_control',
  'basic_auth',
  'basic_auth_credentials_missing',
  'jwt',
  'jwt_token_missing',
  'jwt_token_expired',
  'jwt_token_invalid',
  'oauth2',
  'saml',
  'beta_insufficient_permissions',
  'backend',
  'backend_timeout',
  'backend_unhealthy',
  'backend_openapi_validation',
  'beta_backend_token_request',
  'endpoint',
  'sequence',
  'unexpected_status',
];

/** Access-control types (the family under `access_control`). */
export function isAccessControlKind(kind: GatewayErrorKind): boolean {
  return kindLineage(kind).includes('access_control');
}

export interface GatewayErrorOptions {
  /** Defaults to the type's status. */
  status?: number;
  /** Extra response headers, e.g. `WWW-Authenticate`. */
  headers?: Readonly<Record<string, string>>;
  cause?: unknown;
  /** The backend (label) or block the error came from, for the log line. */
  source?: string;
}

/** An error the gateway answers with its type's status and synopsis; `detail` is for the log only. */
export class GatewayError extends PorticoError {
  readonly status: number;
  readonly synopsis: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly source: string | null;
  /**
   * Set by an error_handler that answered with no response of its own (only requests, or only
   * modifiers): its response modifiers and `set_response_status`, applied to this error's
   * rendered answer. May throw an evaluation error.
   */
  finish: ((answer: GatewayResponse) => GatewayResponse) | null = null;

  constructor(
    readonly kind: GatewayErrorKind,
    readonly detail: string,
    options: GatewayErrorOptions = {},
  ) {
    // The error type is the stable code (`backend_timeout`, ...); the client sees its status.
    super(kind, `${kind}: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.status = options.status ?? ERROR_TYPES[kind].status;
    this.synopsis = ERROR_TYPES[kind].synopsis;
    this.headers = options.headers ?? {};
    this.source = options.source ?? null;
  }
}

/** The type and its super-types, most specific first: `backend_timeout` → [backend_timeout, backend]. */
export function kindLineage(kind: GatewayErrorKind): GatewayErrorKind[] {
  const lineage: GatewayErrorKind[] = [];
  let current: GatewayErrorKind | null = kind;
  while (current !== null) {
    lineage.push(current);
    current = ERROR_TYPES[current].parent;
  }
  return lineage;
}

export function isCatchable(kind: GatewayErrorKind): boolean {
  return CATCHABLE_KINDS.includes(kind);
}

/**
 * How specifically a handler with these labels catches `kind`: 0 for the exact type, 1 for
 * its super-type, ..., a large number for `*`; null when it does not catch it. The most
 * specific handler wins.
 */
export function handlerSpecificity(labels: readonly string[], kind: GatewayErrorKind): number | null {
  if (!isCatchable(kind)) return null;
  const lineage = kindLineage(kind);
  let best: number | null = null;
  for (const label of labels) {
    const depth = label === '*' ? 1000 : lineage.indexOf(label as GatewayErrorKind);
    if (depth >= 0 && (best === null || depth < best)) best = depth;
  }
  return best;
}

/** Wraps anything thrown into a GatewayError (unknown failures become `configuration`/500 with their message as detail). */
export function asGatewayError(error: unknown, fallback: GatewayErrorKind = 'configuration'): GatewayError {
  if (error instanceof GatewayError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new GatewayError(fallback, detail, { cause: error });
}
