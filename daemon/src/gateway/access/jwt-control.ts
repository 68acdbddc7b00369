import type { JsonObject, JwtConfig } from '../config/model.js';
import type { BackendSet } from '../contracts.js';
import { readAll } from '../endpoint/read-all.js';
import { GatewayError } from '../errors/error-types.js';
import { evalDyn } from '../eval/eval-dyn.js';
import { requestCookies } from '../eval/http-variables.js';
import type { AccessCheck, AccessGrant, AccessRequest } from './access-check.js';
import { JwksCache } from './jwks-cache.js';
import { createJwtVerifier } from './jwt-verify.js';
import { grantedPermissions } from './permissions.js';

/** A key set larger than this is refused: no real JWKS comes near it. */
const JWKS_MAX_BYTES = 1024 * 1024;

export interface JwtControl extends AccessCheck {
  readonly jwks: JwksCache | null;
}

/**
 * jwt: the token from its source (header, cookie or expression), verified with the fixed key
 * or the key set, then the claims checks; grants the claims as `request.context.<label>`
 * and the permissions of its permissions and roles claims. A token read from the
 * Authorization header gets the Bearer challenge on failure.
 */
export function jwtControl(config: JwtConfig, backends: BackendSet, warn: (message: string, uid: string) => void): JwtControl {
  const jwks = config.jwks ? new JwksCache({ fetch: (signal: AbortSignal) => fetchKeySet(config, backends, signal), ttlMs: config.jwks.ttl, maxStaleMs: config.jwks.maxStale }) : null;
  const verifier = createJwtVerifier(config, jwks);
  const bearer = config.source.kind === 'header' && config.source.name === 'authorization';
  const fail = (error: GatewayError): GatewayError => {
    const challenge: Record<string, string> = !bearer ? {} : { 'WWW-Authenticate': error.kind === 'jwt_token_missing' ? 'Bearer' : 'Bearer error="invalid_token"' };
    return new GatewayError(error.kind, `jwt "${config.label}": ${error.detail}`, { headers: challenge, source: config.label, cause: error });
  };
  return {
    label: config.label,
    kind: 'jwt',
    jwks,
    validate: async function jwtCheck(request: AccessRequest): Promise<AccessGrant> {
      const token = tokenOf(config, request);
      if (token === '') throw fail(new GatewayError('jwt_token_missing', bearer ? 'no bearer token in the Authorization header' : `no token in ${describeSource(config)}`));
      const claims = config.claims ? evalDyn<JsonObject>(config.claims, request.scope) : null;
      let payload: Record<string, unknown>;
      try {
        payload = await verifier.verify(token, claims as Record<string, unknown> | null);
      } catch (error) {
        throw fail(error instanceof GatewayError ? error : new GatewayError('jwt_token_invalid', error instanceof Error ? error.message : String(error)));
      }
      const granted = grantedPermissions(payload, config);
      for (const warning of granted.warnings) warn(`jwt "${config.label}": ${warning}`, request.scope.request.id);
      return { context: payload, permissions: granted.permissions, user: typeof payload['sub'] === 'string' ? payload['sub'] : null };
    },
  };
}

function tokenOf(config: JwtConfig, request: AccessRequest): string {
  const source = config.source;
  if (source.kind === 'value') {
    const value = evalDyn<string>(source.value, request.scope);
    return typeof value === 'string' ? value.trim() : '';
  }
  if (source.kind === 'cookie') return requestCookies(request.headers['cookie']).get(source.name) ?? '';
  const raw = request.headers[source.name];
  const value = (typeof raw === 'string' ? raw : (raw?.[0] ?? '')).trim();
  if (source.name !== 'authorization') return value;
  // Authorization implies the Bearer scheme; any other scheme is no token for this control.
  return value.length > 7 && value.slice(0, 7).toLowerCase() === 'bearer ' ? value.slice(7).trim() : '';
}

function describeSource(config: JwtConfig): string {
  const source = config.source;
  if (source.kind === 'header') return `the ${source.name} header`;
  if (source.kind === 'cookie') return `the cookie ${JSON.stringify(source.name)}`;
  return 'token_value';
}

async function fetchKeySet(config: JwtConfig, backends: BackendSet, signal: AbortSignal): Promise<unknown> {
  const jwks = config.jwks!;
  const response = await backends.get(jwks.backend).send({
    method: 'GET',
    url: new URL(jwks.url),
    headers: { accept: 'application/json' },
    body: null,
    signal,
    requestId: `jwks-${config.label}`,
    handler: `jwks:${config.label}`,
  });
  const body = await readAll(response.body, signal);
  if (response.status !== 200) throw new Error(`${jwks.url} answered ${response.status}`);
  if (body.length > JWKS_MAX_BYTES) throw new Error(`${jwks.url} answered more than ${JWKS_MAX_BYTES} bytes`);
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new Error(`${jwks.url} answered no JSON`);
  }
}
