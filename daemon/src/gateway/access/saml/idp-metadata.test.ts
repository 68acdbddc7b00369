import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSamlIdp } from '../../../testing/login-providers/saml-idp.js';
import type { SamlIdp } from '../../../testing/login-providers/saml-idp.js';
import { parseIdpMetadata, SamlMetadataError } from './idp-metadata.js';

let idp: SamlIdp;
let der: string;
beforeAll(async () => {
  idp = await startSamlIdp({ users: {} });
  der = idp.certificatePem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
});
afterAll(() => idp.close());

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

const key = (use: string | null, certificate: string) =>
  `<md:KeyDescriptor${use === null ? '' : ` use="${use}"`}><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
const sso = (binding: string, location = 'https://idp.example/sso?tenant=a') => `<md:SingleSignOnService Binding="${binding}" Location="${location}"/>`;

function metadata({ keys = [key('signing', der)], services = [sso(POST), sso(REDIRECT)], entityId = 'https://idp.example/metadata' }: { keys?: string[]; services?: string[]; entityId?: string } = {}): string {
  return [
    '<?xml version="1.0"?>',
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">`,
    '  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
    ...keys.map((k) => `    ${k}`),
    ...services.map((s) => `    ${s}`),
    '  </md:IDPSSODescriptor>',
    '</md:EntityDescriptor>',
  ].join('\n');
}

function problem(xml: string): SamlMetadataError {
  try {
    parseIdpMetadata(xml);
  } catch (error) {
    expect(error).toBeInstanceOf(SamlMetadataError);
    expect((error as SamlMetadataError).code).toBe('SAML_METADATA_INVALID');
    return error as SamlMetadataError;
  }
  throw new Error('expected the metadata to be refused');
}

describe('parseIdpMetadata', () => {
  it('reads the metadata the test IdP serves', async () => {
    const served = await (await fetch(idp.metadataUrl)).text();
    const parsed = parseIdpMetadata(served);
    expect(parsed).toEqual({ entityId: idp.entityId, ssoUrl: idp.ssoUrl, certificates: [expect.stringContaining('-----BEGIN CERTIFICATE-----')] });
    expect(new X509Certificate(parsed.certificates[0]!).fingerprint256).toBe(new X509Certificate(idp.certificatePem).fingerprint256);
  });

  it('takes the HTTP-Redirect SSO location and the signing and unqualified keys, not the encryption ones', () => {
    const other = new X509Certificate(idp.certificatePem);
    const parsed = parseIdpMetadata(metadata({ keys: [key('encryption', 'bm90IGEgY2VydA=='), key(null, der), key('signing', `\n      ${der.replace(/(.{64})/g, '$1\n      ')}\n    `)] }));
    expect(parsed.entityId).toBe('https://idp.example/metadata');
    expect(parsed.ssoUrl).toBe('https://idp.example/sso?tenant=a');
    expect(parsed.certificates).toHaveLength(2);
    for (const pem of parsed.certificates) expect(new X509Certificate(pem).fingerprint256).toBe(other.fingerprint256);
  });

  it('reads an EntitiesDescriptor holding one identity provider', () => {
    const inner = metadata().replace('<?xml version="1.0"?>\n', '');
    const wrapped = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${inner}</md:EntitiesDescriptor>`;
    expect(parseIdpMetadata(wrapped).entityId).toBe('https://idp.example/metadata');
  });

  it('reports XML syntax errors with line and column', () => {
    const broken = metadata().replace('<md:IDPSSODescriptor protocolSupportEnumeration', '<md:IDPSSODescriptor a="1" a="2" protocolSupportEnumeration');
    const error = problem(broken);
    expect({ line: error.line, column: error.column }).toEqual({ line: 3, column: 3 });
    expect(error.message).toMatch(/^XML syntax error at 3,3: Attribute a redefined/);
    const notXml = problem('this is not XML');
    expect(notXml.message).toMatch(/XML syntax error: no root element/);
    expect(notXml.line).toBeNull();
  });

  it('says when there is no IDPSSODescriptor (SP metadata, say)', () => {
    const sp = metadata().replace(/IDPSSODescriptor/g, 'SPSSODescriptor');
    expect(problem(sp).message).toMatch(/^no IDPSSODescriptor in the metadata of https:\/\/idp\.example\/metadata/);
  });

  it('says which bindings there are when HTTP-Redirect is missing', () => {
    expect(problem(metadata({ services: [sso(POST)] })).message).toMatch(/^no SingleSignOnService with the HTTP-Redirect binding \(found: HTTP-POST\)/);
    expect(problem(metadata({ services: [] })).message).toMatch(/\(found: none\)/);
  });

  it('refuses a certificate that is not base64 DER, numbering it', () => {
    expect(problem(metadata({ keys: [key('signing', der), key('signing', 'not*base64')] })).message).toMatch(/^certificate 2 is not valid base64 DER/);
    expect(problem(metadata({ keys: [key('signing', 'bm90IGEgY2VydGlmaWNhdGU=')] })).message).toMatch(/^certificate 1 is not valid base64 DER/);
  });

  it('refuses metadata without a signing certificate, without entityID, or of another kind', () => {
    expect(problem(metadata({ keys: [key('encryption', der)] })).message).toMatch(/^no signing certificate/);
    expect(problem(metadata({ entityId: '' })).message).toMatch(/no entityID/);
    expect(problem('<html><body/></html>').message).toMatch(/root element is <html>/);
    expect(problem(metadata({ services: [sso(REDIRECT, '/relative/sso')] })).message).toMatch(/not an absolute http\(s\) URL/);
  });
});
