import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import type { IdpMetadata } from './idp-metadata.js';
import { escapeXml, SAML_NS } from './saml-xml.js';

export interface ServiceProvider {
  readonly entityId: string;
  /** Absolute: where the IdP posts the Response. */
  readonly acsUrl: string;
}

/**
 * `saml_sso_url(label)`: the IdP's SSO URL with an unsigned AuthnRequest in the HTTP-Redirect
 * binding. Synchronous because HCL functions are.
 */
export function samlSsoUrl(metadata: Pick<IdpMetadata, 'ssoUrl'>, sp: ServiceProvider, now: Date = new Date()): string {
  const request = authnRequestXml(metadata.ssoUrl, sp, now);
  const encoded = encodeURIComponent(deflateRawSync(Buffer.from(request, 'utf8')).toString('base64'));
  return withQueryParameter(metadata.ssoUrl, `SAMLRequest=${encoded}`);
}

function authnRequestXml(destination: string, sp: ServiceProvider, now: Date): string {
  const id = `_${randomBytes(20).toString('hex')}`;
  return (
    `<samlp:AuthnRequest xmlns:samlp="${SAML_NS.samlp}" xmlns:saml="${SAML_NS.saml}" ID="${id}" Version="2.0"` +
    ` IssueInstant="${now.toISOString()}" Destination="${escapeXml(destination)}"` +
    ` AssertionConsumerServiceURL="${escapeXml(sp.acsUrl)}" ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST">` +
    `<saml:Issuer>${escapeXml(sp.entityId)}</saml:Issuer>` +
    `<samlp:NameIDPolicy AllowCreate="true"/>` +
    `</samlp:AuthnRequest>`
  );
}

/** Appends to the query as written: re-serialising it through URLSearchParams could change its encoding. */
function withQueryParameter(url: string, parameter: string): string {
  const hash = url.indexOf('#');
  const base = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? '' : url.slice(hash);
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${parameter}${fragment}`;
}
