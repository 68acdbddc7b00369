import type { SamlConfig } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import type { AccessGrant, AccessRequest, LoginCheck, LoginStatus } from './access-check.js';
import { resolveCallbackUrl } from './oauth2/callback-url.js';
import { createSamlAcs, samlSsoUrl, SamlError } from './saml/index.js';

/**
 * saml: the Assertion Consumer Service endpoint. The IdP's POSTed response must carry an
 * assertion signed by a certificate of its metadata, for this SP (audience), within its
 * time window, not seen before; `request.context.<label>` gets `sub`, `exp` (when the IdP
 * sets SessionNotOnOrAfter) and `attributes`.
 */
export function samlControl(config: SamlConfig): LoginCheck {
  const acs = createSamlAcs({ metadata: config.idp, spEntityId: config.spEntityId, arrayAttributes: [...config.arrayAttributes] });
  const fail = (detail: string, cause?: unknown): GatewayError => new GatewayError('saml', `saml "${config.label}": ${detail}`, { source: config.label, cause });
  let lastError: string | null = null;
  let lastErrorAt: number | null = null;
  return {
    label: config.label,
    kind: 'saml',
    validate: async function samlCheck(request: AccessRequest): Promise<AccessGrant> {
      const { method, url } = request.scope.request;
      if (method !== 'POST') throw fail(`wrong method: ${method} (the IdP posts its response)`);
      const body = request.scope.bufferedBody();
      const response = body === null ? null : new URLSearchParams(body.toString('utf8')).get('SAMLResponse');
      if (response === null || response === '') throw fail('missing SAMLResponse form field');
      let grant;
      try {
        grant = await acs.validate(response, resolveCallbackUrl(config.spAcsUrl, url));
      } catch (error) {
        if (!(error instanceof SamlError)) throw error;
        lastError = error.message;
        lastErrorAt = Date.now();
        throw fail(error.message, error);
      }
      const context: Record<string, unknown> = { sub: grant.sub, attributes: grant.attributes };
      if (grant.exp !== null) context['exp'] = grant.exp;
      return { context, permissions: [], user: grant.sub };
    },
    loginUrl(_verifier: () => string, requestUrl: URL): string {
      return samlSsoUrl(config.idp, { entityId: config.spEntityId, acsUrl: resolveCallbackUrl(config.spAcsUrl, requestUrl) });
    },
    prepare: async () => undefined,
    close: () => undefined,
    status(): LoginStatus {
      return { label: config.label, kind: 'saml', provider: config.idp.entityId, lastError, lastErrorAt, configurationFetchedAt: null, usingCachedConfiguration: false };
    },
  };
}
