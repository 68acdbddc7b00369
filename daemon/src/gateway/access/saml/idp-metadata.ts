import { X509Certificate } from 'node:crypto';
import { attribute, firstElement, isSamlElement, parseXml, selectElements, text, XmlSyntaxError } from './saml-xml.js';
import type { XmlElement } from './saml-xml.js';
import { PorticoError } from '../../../core/errors.js';
import { parseUrl } from '../../../core/parse-url.js';

/** What the gateway needs of an identity provider's SAML 2.0 metadata. */
export interface IdpMetadata {
  readonly entityId: string;
  /** SingleSignOnService with the HTTP-Redirect binding. */
  readonly ssoUrl: string;
  /** PEM certificates of the KeyDescriptors with use="signing" or no use. */
  readonly certificates: readonly string[];
}

export class SamlMetadataError extends PorticoError {
  override name = 'SamlMetadataError';
  constructor(
    message: string,
    readonly line: number | null = null,
    readonly column: number | null = null,
    options?: { cause?: unknown },
  ) {
    super('SAML_METADATA_INVALID', message, options);
  }
}

const BINDING_PREFIX = 'urn:oasis:names:tc:SAML:2.0:bindings:';
const HTTP_REDIRECT = `${BINDING_PREFIX}HTTP-Redirect`;

/** Reads an IdP's metadata (an EntityDescriptor, or an EntitiesDescriptor holding exactly one IdP). */
export function parseIdpMetadata(xml: string): IdpMetadata {
  let root: XmlElement;
  try {
    root = parseXml(xml).documentElement;
  } catch (error) {
    if (!(error instanceof XmlSyntaxError)) throw error;
    throw new SamlMetadataError(`${error.message} (the IdP metadata must be well-formed XML)`, error.line, error.column, { cause: error });
  }
  const entity = identityProvider(root);
  const entityId = attribute(entity, 'entityID')?.trim() ?? '';
  if (entityId === '') throw new SamlMetadataError('the EntityDescriptor has no entityID attribute (is the metadata complete?)');
  const descriptor = firstElement('md:IDPSSODescriptor', entity);
  if (descriptor === null) throw new SamlMetadataError(`no IDPSSODescriptor in the metadata of ${entityId} (is this the metadata of an identity provider, not of a service provider?)`);
  return { entityId, ssoUrl: redirectSsoUrl(descriptor), certificates: signingCertificates(descriptor) };
}

function identityProvider(root: XmlElement): XmlElement {
  if (isSamlElement(root, 'md', 'EntityDescriptor')) return root;
  if (!isSamlElement(root, 'md', 'EntitiesDescriptor')) {
    throw new SamlMetadataError(`the root element is <${root.localName}> in namespace ${root.namespaceURI ?? '(none)'}, not a SAML 2.0 metadata EntityDescriptor`);
  }
  const idps = selectElements('.//md:EntityDescriptor[md:IDPSSODescriptor]', root);
  const [only] = idps;
  if (only === undefined) throw new SamlMetadataError('no IDPSSODescriptor in any EntityDescriptor of the EntitiesDescriptor');
  if (idps.length > 1) {
    const ids = idps.map((e) => attribute(e, 'entityID') ?? '?').join(', ');
    throw new SamlMetadataError(`the metadata describes ${idps.length} identity providers (${ids}); give a file with the EntityDescriptor of one`);
  }
  return only;
}

function redirectSsoUrl(descriptor: XmlElement): string {
  const services = selectElements('md:SingleSignOnService', descriptor);
  const redirect = services.find((s) => attribute(s, 'Binding') === HTTP_REDIRECT);
  if (redirect === undefined) {
    const found = services.map((s) => shortBinding(attribute(s, 'Binding') ?? '(no Binding)')).join(', ') || 'none';
    throw new SamlMetadataError(`no SingleSignOnService with the HTTP-Redirect binding (found: ${found}); the gateway sends AuthnRequests by redirect`);
  }
  const location = attribute(redirect, 'Location')?.trim() ?? '';
  if (!/^https?:\/\//i.test(location) || parseUrl(location) === null) {
    throw new SamlMetadataError(`the HTTP-Redirect SingleSignOnService Location ${JSON.stringify(location)} is not an absolute http(s) URL`);
  }
  return location;
}

function signingCertificates(descriptor: XmlElement): string[] {
  const elements = selectElements("md:KeyDescriptor[not(@use) or @use='signing']/ds:KeyInfo/ds:X509Data/ds:X509Certificate", descriptor);
  if (elements.length === 0) {
    throw new SamlMetadataError('no signing certificate in the IDPSSODescriptor (a KeyDescriptor with use="signing" or no use, holding a ds:X509Certificate)');
  }
  return elements.map((element, index) => {
    const base64 = text(element).replace(/\s+/g, '');
    try {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw new Error('not base64');
      return new X509Certificate(Buffer.from(base64, 'base64')).toString();
    } catch (error) {
      throw new SamlMetadataError(`certificate ${index + 1} is not valid base64 DER (an X509Certificate element holds the base64 of one DER certificate, without PEM header lines)`, null, null, { cause: error });
    }
  });
}

function shortBinding(binding: string): string {
  return binding.startsWith(BINDING_PREFIX) ? binding.slice(BINDING_PREFIX.length) : binding;
}
