import type { BetaOAuth2Config } from '../../config/model.js';
import type { AccessGrant, AccessRequest, LoginCheck, LoginStatus } from '../access-check.js';
import { authorizationUrl } from './authorization-url.js';
import { callbackCode, exchangeCode, oauth2Error, ProviderErrors, verifierValue, type CodeFlowDeps } from './code-callback.js';
import { s256 } from './pkce.js';

/**
 * beta_oauth2: the redirect endpoint of the authorization code grant. The code is
 * exchanged for a token (with the PKCE verifier, or after the state was checked against
 * the verifier's hash); the token response becomes `request.context.<label>`.
 */
export function betaOAuth2Control(config: BetaOAuth2Config, deps: CodeFlowDeps): LoginCheck {
  const errors = new ProviderErrors();
  return {
    label: config.label,
    kind: 'beta_oauth2',
    validate: async function betaOAuth2Check(request: AccessRequest): Promise<AccessGrant> {
      const code = callbackCode(config, request);
      const verifier = verifierValue(config, request);
      if (config.verifierMethod === 'state') {
        const state = request.scope.request.url.searchParams.get('state');
        if (state === null || state === '') throw oauth2Error(config, 'missing state query parameter');
        if (state !== s256(verifier)) throw oauth2Error(config, 'state mismatch: the state parameter is not the hash of verifier_value (a forged or crossed login)');
      }
      const token = await exchangeCode(config, deps, request, { tokenEndpoint: config.tokenEndpoint, backend: config.backend, code, codeVerifier: config.verifierMethod === 'ccm_s256' ? verifier : null }, errors);
      errors.clear();
      return { context: token, permissions: [], user: null };
    },
    loginUrl(verifier: () => string, requestUrl: URL): string {
      const { authorizationEndpoint: endpoint, client, redirectUri, verifierMethod: method } = config;
      return authorizationUrl({ endpoint, clientId: client.clientId, redirectUri, requestUrl, scope: client.scope, method, verifier: verifier() });
    },
    prepare: async () => undefined,
    close: () => undefined,
    status(): LoginStatus {
      return { label: config.label, kind: 'beta_oauth2', provider: new URL(config.authorizationEndpoint).origin, lastError: errors.lastError, lastErrorAt: errors.lastErrorAt, configurationFetchedAt: null, usingCachedConfiguration: false };
    },
  };
}
