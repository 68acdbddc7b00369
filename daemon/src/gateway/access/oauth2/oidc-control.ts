import { decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import type { OidcConfig } from '../../config/model.js';
import { GatewayError } from '../../errors/error-types.js';
import type { AccessGrant, AccessRequest, LoginCheck, LoginStatus } from '../access-check.js';
import { JwksCache } from '../jwks-cache.js';
import { AuthServerError, answerExcerpt, callAuthServer } from './auth-server.js';
import { authorizationUrl } from './authorization-url.js';
import { callbackCode, exchangeCode, oauth2Error, ProviderErrors, verifierValue, type CodeFlowDeps } from './code-callback.js';
import { OidcConfigurationCache, OidcConfigurationError, type OidcProviderMetadata } from './oidc-configuration.js';
import { s256 } from './pkce.js';

/** ID tokens are signed with a key of the provider's set; HS* (the client secret) and `none` are refused. */
const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const LEEWAY_S = 1;

/**
 * oidc: the redirect endpoint of an OpenID Connect authorization code flow. The provider's
 * configuration comes from configuration_url (cached, TTL + max stale), the code is
 * exchanged, the ID token verified (signature with the provider's key set, iss, aud, exp,
 * iat, azp, and the nonce when that is the verifier method), and the userinfo fetched
 * (its `sub` must be the ID token's). `request.context.<label>` gets the token response
 * plus `id_token_claims` and `userinfo`.
 */
export function oidcControl(config: OidcConfig, deps: CodeFlowDeps): LoginCheck {
  const errors = new ProviderErrors();
  const discovery = new OidcConfigurationCache({
    ttlMs: config.configurationTtl,
    maxStaleMs: config.configurationMaxStale,
    fetch: async (signal) => {
      const answer = await callAuthServer(deps.gateway, deps.backends, config.backends.configuration, { method: 'GET', url: new URL(config.configurationUrl), headers: { accept: 'application/json' }, handler: `oidc:configuration:${config.label}`, requestId: `oidc-${config.label}` }, null, signal);
      if (answer.status !== 200) throw new Error(`${config.configurationUrl} answered ${answer.status}`);
      if (answer.json === undefined) throw new Error(`${config.configurationUrl} answered no JSON: ${answerExcerpt(answer)}`);
      return answer.json;
    },
  });
  const jwks = new JwksCache({
    ttlMs: config.jwksTtl,
    maxStaleMs: config.jwksMaxStale,
    fetch: async (signal) => {
      const metadata = await discovery.get(signal);
      const answer = await callAuthServer(deps.gateway, deps.backends, config.backends.jwks, { method: 'GET', url: new URL(metadata.jwks_uri), headers: { accept: 'application/json' }, handler: `oidc:jwks:${config.label}`, requestId: `oidc-${config.label}` }, null, signal);
      if (answer.status !== 200) throw new Error(`${metadata.jwks_uri} answered ${answer.status}`);
      if (answer.json === undefined) throw new Error(`${metadata.jwks_uri} answered no JSON`);
      return answer.json;
    },
  });
  const method = (metadata: OidcProviderMetadata): 'ccm_s256' | 'nonce' => config.verifierMethod ?? (metadata.code_challenge_methods_supported.includes('S256') ? 'ccm_s256' : 'nonce');

  const metadataFor = async (request: AccessRequest): Promise<OidcProviderMetadata> => {
    try {
      return await discovery.get(request.signal);
    } catch (error) {
      if (error instanceof OidcConfigurationError) throw oauth2Error(config, error.message, error);
      throw error;
    }
  };

  return {
    label: config.label,
    kind: 'oidc',
    validate: async function oidcCheck(request: AccessRequest): Promise<AccessGrant> {
      const code = callbackCode(config, request);
      const verifier = verifierValue(config, request);
      const metadata = await metadataFor(request);
      const verifierMethod = method(metadata);
      const token = await exchangeCode(config, deps, request, { tokenEndpoint: metadata.token_endpoint, backend: config.backends.token, code, codeVerifier: verifierMethod === 'ccm_s256' ? verifier : null }, errors);
      const idToken = token['id_token'];
      if (typeof idToken !== 'string' || idToken === '') throw oauth2Error(config, 'the token response has no id_token (is "openid" among the scopes the provider granted?)');
      const claims = await verifyIdToken(idToken, metadata, verifierMethod === 'nonce' ? s256(verifier) : null);
      const userinfo = await fetchUserinfo(metadata, String(token.access_token), request);
      if (userinfo['sub'] !== claims['sub']) throw oauth2Error(config, `subject mismatch: ID token ${JSON.stringify(claims['sub'])}, userinfo ${JSON.stringify(userinfo['sub'])}`);
      errors.clear();
      return { context: { ...token, id_token_claims: claims, userinfo }, permissions: [], user: typeof claims['sub'] === 'string' ? claims['sub'] : null };
    },
    loginUrl(verifier: () => string, requestUrl: URL): string {
      const metadata = discovery.current();
      if (metadata === null) {
        const { lastError } = discovery.status();
        throw oauth2Error(config, `the OpenID configuration of ${config.configurationUrl} is not loaded${lastError ? `: ${lastError}` : ''}`);
      }
      const scopes = (config.client.scope ?? '').split(' ').filter((s) => s !== '' && s !== 'openid');
      return authorizationUrl({
        endpoint: metadata.authorization_endpoint,
        clientId: config.client.clientId,
        redirectUri: config.redirectUri,
        requestUrl,
        scope: ['openid', ...scopes].join(' '),
        method: method(metadata),
        verifier: verifier(),
      });
    },
    prepare: (signal) => discovery.prepare(signal),
    close: () => discovery.close(),
    status(): LoginStatus {
      const d = discovery.status();
      const latest = [
        { error: d.lastError, at: d.lastErrorAt },
        { error: errors.lastError, at: errors.lastErrorAt },
      ]
        .filter((e) => e.error !== null)
        .sort((a, b) => (b.at ?? 0) - (a.at ?? 0))[0];
      return { label: config.label, kind: 'oidc', provider: config.configurationUrl, lastError: latest?.error ?? null, lastErrorAt: latest?.at ?? null, configurationFetchedAt: d.fetchedAt, usingCachedConfiguration: d.usingCached };
    },
  };

  async function verifyIdToken(idToken: string, metadata: OidcProviderMetadata, expectedNonce: string | null): Promise<Record<string, unknown>> {
    let payload: Record<string, unknown>;
    try {
      const header = decodeProtectedHeader(idToken);
      if (!ID_TOKEN_ALGORITHMS.includes(header.alg ?? '')) throw new Error(`the ID token is signed with ${JSON.stringify(header.alg)}, not with a key of the provider's set`);
      payload = (
        await jwtVerify(idToken, (h) => jwks.key(h.kid, h.alg), {
          issuer: metadata.issuer,
          audience: config.client.clientId,
          algorithms: ID_TOKEN_ALGORITHMS,
          clockTolerance: LEEWAY_S,
          requiredClaims: ['exp', 'iat', 'sub'],
        })
      ).payload;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof Error) throw oauth2Error(config, `invalid ID token: ${error.message}`, error);
      throw error;
    }
    const aud = payload['aud'];
    const azp = payload['azp'];
    if (Array.isArray(aud) && aud.length > 1 && azp === undefined) throw oauth2Error(config, 'invalid ID token: several audiences and no azp claim');
    if (azp !== undefined && azp !== config.client.clientId) throw oauth2Error(config, `invalid ID token: azp ${JSON.stringify(azp)} is not the client id`);
    if (expectedNonce !== null) {
      const nonce = payload['nonce'];
      if (typeof nonce !== 'string') throw oauth2Error(config, 'invalid ID token: missing nonce claim');
      if (nonce !== expectedNonce) throw oauth2Error(config, 'invalid ID token: the nonce is not the hash of verifier_value (a forged or crossed login)');
    }
    return payload;
  }

  async function fetchUserinfo(metadata: OidcProviderMetadata, accessToken: string, request: AccessRequest): Promise<Record<string, unknown>> {
    const endpoint = metadata.userinfo_endpoint;
    if (endpoint === null) throw oauth2Error(config, 'the provider\'s configuration has no userinfo_endpoint');
    try {
      const answer = await callAuthServer(deps.gateway, deps.backends, config.backends.userinfo, { method: 'GET', url: new URL(endpoint), headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` }, handler: `oidc:userinfo:${config.label}`, requestId: request.scope.request.id }, request.scope, request.signal);
      if (answer.status !== 200) throw new AuthServerError(`userinfo endpoint ${endpoint} answered ${answer.status}`);
      const json = answer.json;
      if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new AuthServerError(`userinfo endpoint ${endpoint} answered no JSON object`);
      return json as Record<string, unknown>;
    } catch (error) {
      if (!(error instanceof AuthServerError)) throw error instanceof GatewayError ? error : oauth2Error(config, String(error));
      errors.record(error);
      throw oauth2Error(config, `requesting userinfo failed: ${error.message}`, error);
    }
  }
}
