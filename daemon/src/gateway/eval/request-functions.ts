import { randomBytes } from 'node:crypto';
import { definePlainFunction, type FunctionTable, type PlainValue } from '../../hcl/index.js';
import { signerFor } from '../access/signers.js';
import type { GatewayConfig, JsonObject } from '../config/model.js';
import { evalDyn } from './eval-dyn.js';
import type { EvalScope } from './request-scope.js';

export interface RequestFunctionsOptions {
  readonly config: GatewayConfig;
  /** The scope `jwt_sign` evaluates a profile's default claims in. */
  readonly scope: EvalScope;
}

/**
 * The functions that exist only while a request is served, for one client request:
 * `oauth2_verifier()` gives the same random value on every call within it; `jwt_sign`
 * signs with the configuration's profiles. (`oauth2_authorization_url` and `saml_sso_url`
 * are refused at load: this build has no block they could use.)
 */
export function requestFunctions({ config, scope }: RequestFunctionsOptions): FunctionTable {
  let verifier: string | null = null;
  return {
    unixtime: definePlainFunction({ params: [], impl: () => Math.floor(Date.now() / 1000) }),
    // RFC 7636: 32 random octets, base64url without padding (43 characters).
    oauth2_verifier: definePlainFunction({ params: [], impl: () => (verifier ??= randomBytes(32).toString('base64url')) }),
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
