import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSamlIdp } from '../../../testing/login-providers/saml-idp.js';
import type { SamlIdp } from '../../../testing/login-providers/saml-idp.js';
import { createSamlAcs } from './acs.js';
import { parseIdpMetadata } from './idp-metadata.js';
import { attribute, firstElement, isSamlElement, parseXml, text } from './saml-xml.js';
import { samlSsoUrl } from './sso-url.js';
import { SP } from './testing/saml-refusals.js';

let idp: SamlIdp;
beforeAll(async () => {
  idp = await startSamlIdp({ users: { alice: { password: 'pw' } } });
});
afterAll(() => idp.close());

function authnRequest(url: string) {
  const encoded = new URL(url).searchParams.get('SAMLRequest');
  if (encoded === null) throw new Error(`no SAMLRequest in ${url}`);
  const root = parseXml(inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8')).documentElement;
  expect(isSamlElement(root, 'samlp', 'AuthnRequest')).toBe(true);
  const issuer = firstElement('saml:Issuer', root);
  const policy = firstElement('samlp:NameIDPolicy', root);
  const read = (name: string) => attribute(root, name);
  return {
    id: read('ID'),
    version: read('Version'),
    issueInstant: read('IssueInstant'),
    destination: read('Destination'),
    acsUrl: read('AssertionConsumerServiceURL'),
    protocolBinding: read('ProtocolBinding'),
    issuer: issuer === null ? null : text(issuer),
    allowCreate: policy === null ? null : attribute(policy, 'AllowCreate'),
  };
}

describe('samlSsoUrl', () => {
  it('carries a deflated AuthnRequest for the SP in the SAMLRequest parameter', () => {
    const now = new Date('2030-01-02T03:04:05.000Z');
    const url = samlSsoUrl({ ssoUrl: 'https://idp.example/sso' }, SP, now);
    expect(typeof url).toBe('string');
    expect(url).toMatch(/^https:\/\/idp\.example\/sso\?SAMLRequest=[^&]+$/);
    expect(authnRequest(url)).toEqual({
      id: expect.stringMatching(/^_[0-9a-f]{40}$/),
      version: '2.0',
      issueInstant: '2030-01-02T03:04:05.000Z',
      destination: 'https://idp.example/sso',
      acsUrl: SP.acsUrl,
      protocolBinding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
      issuer: SP.entityId,
      allowCreate: 'true',
    });
  });

  it('gives each request its own ID', () => {
    const ids = new Set(Array.from({ length: 5 }, () => authnRequest(samlSsoUrl({ ssoUrl: 'https://idp.example/sso' }, SP)).id));
    expect(ids.size).toBe(5);
  });

  it('keeps the query and fragment of the SSO URL as written', () => {
    const url = samlSsoUrl({ ssoUrl: 'https://idp.example/sso?tenant=a%20b&x=1#top' }, SP);
    expect(url).toMatch(/^https:\/\/idp\.example\/sso\?tenant=a%20b&x=1&SAMLRequest=[^&#]+#top$/);
    expect(authnRequest(url).destination).toBe('https://idp.example/sso?tenant=a%20b&x=1#top');
  });

  it('escapes the SP values inside the XML', () => {
    const request = authnRequest(samlSsoUrl({ ssoUrl: 'https://idp.example/sso' }, { entityId: 'urn:sp:<a&b>', acsUrl: 'https://sp.example/acs?x="1"&y=2' }));
    expect(request.issuer).toBe('urn:sp:<a&b>');
    expect(request.acsUrl).toBe('https://sp.example/acs?x="1"&y=2');
  });

  it('is accepted by the IdP, whose answer to it the ACS accepts', async () => {
    const url = samlSsoUrl(parseIdpMetadata(idp.metadataXml), SP);
    const login = await idp.login(url, 'alice', 'pw');
    expect(login.acsUrl).toBe(SP.acsUrl);
    expect(Buffer.from(login.samlResponse, 'base64').toString('utf8')).toContain(`InResponseTo="${authnRequest(url).id}"`);
    const acs = createSamlAcs({ metadata: parseIdpMetadata(idp.metadataXml), spEntityId: SP.entityId, arrayAttributes: [] });
    await expect(acs.validate(login.samlResponse, login.acsUrl)).resolves.toMatchObject({ sub: 'alice' });
  });
});
