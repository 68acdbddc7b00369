import { randomBytes } from 'node:crypto';
import { definePlainFunction, type FunctionTable } from '../../hcl/index.js';

/** Access-control functions and the block each needs; those blocks come with access control (a later issue). */
const ACCESS_CONTROL_FUNCTIONS: Readonly<Record<string, { params: string[]; needs: string }>> = {
  jwt_sign: { params: ['label', 'claims'], needs: 'a jwt_signing_profile block or a jwt block with signing_ttl' },
  saml_sso_url: { params: ['label'], needs: 'a saml block' },
  oauth2_authorization_url: { params: ['label'], needs: 'a beta_oauth2 or oidc block' },
};

/**
 * The functions that exist only while a request is served, for one client request:
 * `oauth2_verifier()` gives the same random value on every call within it.
 */
export function requestFunctions(): FunctionTable {
  let verifier: string | null = null;
  const table: FunctionTable = {
    unixtime: definePlainFunction({ params: [], impl: () => Math.floor(Date.now() / 1000) }),
    // RFC 7636: 32 random octets, base64url without padding (43 characters).
    oauth2_verifier: definePlainFunction({ params: [], impl: () => (verifier ??= randomBytes(32).toString('base64url')) }),
  };
  for (const [name, { params, needs }] of Object.entries(ACCESS_CONTROL_FUNCTIONS)) {
    table[name] = definePlainFunction({
      params: params.map((p) => ({ name: p, type: 'dynamic', allowNull: true })),
      impl: (args) => {
        const label = typeof args[0] === 'string' ? JSON.stringify(args[0]) : 'the given label';
        throw new Error(`${name} needs ${needs} labelled ${label} in definitions, and this gateway has none (access control blocks are not supported yet)`);
      },
    });
  }
  return table;
}
