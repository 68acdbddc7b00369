import { randomBytes } from 'node:crypto';
import { definePlainFunction, type FunctionTable, type HclFunction, type PlainValue } from '../../hcl/index.js';
import { signerFor } from '../access/signers.js';
import type { GatewayConfig, JsonObject } from '../config/model.js';
import type { AccessControlSet } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { evalDyn } from './eval-dyn.js';
import type { EvalScope } from './request-scope.js';

export interface RequestFunctionsOptions {
  readonly config: GatewayConfig;
  /** The scope `jwt_sign` evaluates a profile's default claims in. */
  readonly scope: EvalScope;
  /** The login controls behind `oauth2_authorization_url` and `saml_sso_url`; null where none can run. */
  readonly access: AccessControlSet | null;
  /** The client request's URL, against which relative redirect URIs resolve. */
  readonly requestUrl: URL;
  /**
   * Told of a failure that has an error type of its own (an oidc configuration not loaded:
   * `oauth2`), before the function throws: HCL turns a thrown error into a plain
   * evaluation error, and the caller restores the type from here.
   */
  readonly onTypedFailure: (error: GatewayError) => void;
}

/** The names of the functions `requestFunctions` makes (its return type holds the two together). */
export const REQUEST_FUNCTION_NAMES = ['unixtime', 'oauth2_verifier', 'oauth2_authorization_url', 'saml_sso_url', 'jwt_sign'] as const;

/**
 * The functions that exist only while a request is served, for one client request:
 * `oauth2_verifier()` gives the same random value on every call within it; `jwt_sign`
 * signs with the configuration's profiles; `oauth2_authorization_url` and `saml_sso_url`
 * build the login URL of a beta_oauth2, oidc or saml block (the first two with this
 * request's verifier, so the URL and the cookie set from `oauth2_verifier()` match).
 */
export function requestFunctions({ config, scope, access, requestUrl, onTypedFailure }: RequestFunctionsOptions): FunctionTable & Record<(typeof REQUEST_FUNCTION_NAMES)[number], HclFunction> {
  let verifier: string | null = null;
  // RFC 7636: 32 random octets, base64url without padding (43 characters).
  const oauth2Verifier = (): string => (verifier ??= randomBytes(32).toString('base64url'));
  const loginUrl = (label: string): string => {
    if (access === null) throw new Error('no login control can run here');
    try {
      return access.loginUrl(label, oauth2Verifier, requestUrl);
    } catch (error) {
      if (error instanceof GatewayError) onTypedFailure(error);
      throw error;
    }
  };
  return {
    unixtime: definePlainFunction({ params: [], impl: () => Math.floor(Date.now() / 1000) }),
    oauth2_verifier: definePlainFunction({ params: [], impl: oauth2Verifier }),
    oauth2_authorization_url: definePlainFunction({ params: [{ name: 'label', type: 'string' }], impl: ([label]) => loginUrl(label as string) }),
    saml_sso_url: definePlainFunction({ params: [{ name: 'label', type: 'string' }], impl: ([label]) => loginUrl(label as string) }),
    jwt_sign: definePlainFunction({
      params: [
        { name: 'label', type: 'string' },
        { name: 'claims', type: 'dynamic', allowNull: true },
      ],
      impl: ([label, claims]) => jwtSign(config, scope, label as string, claims ?? null),
    }),
  };
}

function jwtSign(config: GatewayConfig, scope: EvalScope, label: string, claims: PlainValue): string {
  const signer = signerFor(config, label);
  if (signer === null) {
    const known = Object.keys(config.signingProfiles);
    throw new Error(`jwt_sign: no jwt_signing_profile or jwt block with signing_ttl is labelled ${JSON.stringify(label)}${known.length > 0 ? `; known: ${known.map((k) => JSON.stringify(k)).join(', ')}` : ''}`);
  }
  if (claims !== null && (typeof claims !== 'object' || Array.isArray(claims))) throw new Error('jwt_sign: claims must be an object');
  const profile = config.signingProfiles[label];
  const defaults = profile?.claims ? evalDyn<JsonObject>(profile.claims, scope) : null;
  return signer.sign((claims ?? {}) as Record<string, unknown>, defaults as Record<string, unknown> | null, Math.floor(Date.now() / 1000));
}
