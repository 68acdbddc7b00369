import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attribute, firstElement, parseXml, selectElements, text } from '../../gateway/access/saml/saml-xml.js';
import type { XmlElement } from '../../gateway/access/saml/saml-xml.js';
import { startSamlIdp } from './saml-idp.js';
import type { SamlIdp } from './saml-idp.js';

const SP_ENTITY = 'https://sp.example/saml';
const ACS = 'https://sp.example/saml/acs';

let idp: SamlIdp;
let stranger: SamlIdp;
beforeAll(async () => {
  [idp, stranger] = await Promise.all([
    startSamlIdp({ users: { alice: { password: 'wonderland', nameId: 'alice@example.org', attributes: { groups: ['admins', 'staff'], mail: 'alice@example.org' } } } }),
    startSamlIdp({ users: {} }),
  ]);
});
afterAll(() => Promise.all([idp.close(), stranger.close()]));

/** An AuthnRequest as an SP sends it by redirect. */
function ssoUrl(id = '_req1', relayState?: string): string {
  const request = `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${new Date().toISOString()}" AssertionConsumerServiceURL="${ACS}"><saml:Issuer>${SP_ENTITY}</saml:Issuer></samlp:AuthnRequest>`;
  const url = new URL(idp.ssoUrl);
  url.searchParams.set('SAMLRequest', deflateRawSync(request).toString('base64'));
  if (relayState !== undefined) url.searchParams.set('RelayState', relayState);
  return url.href;
}

/** Whether `signature` (a ds:Signature element) verifies over `xml` with `certificatePem`. */
function verifies(xml: string, signature: XmlElement, certificatePem: string): boolean {
  const verifier = new SignedXml({ publicCert: certificatePem });
  verifier.loadSignature(signature);
  try {
    return verifier.checkSignature(xml);
  } catch {
    return false;
  }
}

describe('test SAML IdP', () => {
  it('serves its metadata: entity ID, signing certificate, SSO bindings', async () => {
    const res = await fetch(idp.metadataUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/samlmetadata+xml');
    const body = await res.text();
    expect(body).toBe(idp.metadataXml);
    const root = parseXml(body).documentElement;
    expect(attribute(root, 'entityID')).toBe(idp.entityId);
    expect(idp.entityId).toBe(`${idp.url}/metadata`);
    const descriptor = firstElement('md:IDPSSODescriptor', root);
    expect(descriptor).not.toBeNull();
    const certificate = firstElement("md:KeyDescriptor[@use='signing']/ds:KeyInfo/ds:X509Data/ds:X509Certificate", descriptor!);
    expect(text(certificate!)).toBe(idp.certificatePem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''));
    const services = selectElements('md:SingleSignOnService', descriptor!).map((s) => [attribute(s, 'Binding'), attribute(s, 'Location')]);
    expect(services).toEqual([
      ['urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', idp.ssoUrl],
      ['urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', idp.ssoUrl],
    ]);
    expect(idp.requests).toContainEqual({ method: 'GET', path: '/metadata' });
  });

  it('writes its metadata to a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'saml-idp-test-'));
    try {
      idp.writeMetadata(join(dir, 'idp.xml'));
      expect(readFileSync(join(dir, 'idp.xml'), 'utf8')).toBe(idp.metadataXml);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers an AuthnRequest with a login form carrying the request state', async () => {
    const res = await fetch(ssoUrl('_abc', 'state-1'));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<form method="post" action="/login">');
    expect(html).toMatch(/<label for="username">User name<\/label> <input id="username" name="username"/);
    expect(html).toMatch(/<label for="password">Password<\/label> <input id="password" name="password" type="password"/);
    expect(html).toContain('<button type="submit">Sign in</button>');
    expect(html).toContain(`<input type="hidden" name="acs_url" value="${ACS}">`);
    expect(html).toContain('<input type="hidden" name="in_response_to" value="_abc">');
    expect(html).toContain('<input type="hidden" name="relay_state" value="state-1">');
  });

  it('refuses a request without SAMLRequest, or one that is not deflated', async () => {
    expect((await fetch(idp.ssoUrl)).status).toBe(400);
    expect((await fetch(`${idp.ssoUrl}?SAMLRequest=${encodeURIComponent(Buffer.from('<x/>').toString('base64'))}`)).status).toBe(400);
  });

  it('answers a wrong password with the form again, an error and 401', async () => {
    const form = new URLSearchParams({ acs_url: ACS, audience: SP_ENTITY, username: 'alice', password: 'wrong' });
    const res = await fetch(`${idp.url}/login`, { method: 'POST', body: form });
    expect(res.status).toBe(401);
    const html = await res.text();
    expect(html).toContain('Wrong user name or password.');
    expect(html).toContain('name="password"');
    expect(html).toContain('value="alice"');
    await expect(idp.login(ssoUrl(), 'alice', 'wrong')).rejects.toThrow(/answered 401/);
  });

  it('logs in with an auto-posting form whose SAMLResponse is signed with its certificate', async () => {
    const res = await fetch(`${idp.url}/login`, { method: 'POST', body: new URLSearchParams({ acs_url: ACS, audience: SP_ENTITY, in_response_to: '_r', relay_state: 'rs', username: 'alice', password: 'wonderland' }) });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`<form method="post" action="${ACS}">`);
    expect(html).toContain('<input type="hidden" name="RelayState" value="rs">');
    expect(html).toContain('<button type="submit">Continue</button>');
    expect(html).toContain('document.forms[0].submit()');

    const login = await idp.login(ssoUrl('_req42', 'rs'), 'alice', 'wonderland');
    expect(login.acsUrl).toBe(ACS);
    expect(login.relayState).toBe('rs');
    const xml = Buffer.from(login.samlResponse, 'base64').toString('utf8');
    const response = parseXml(xml).documentElement;
    expect(attribute(response, 'InResponseTo')).toBe('_req42');
    expect(attribute(firstElement('samlp:Status/samlp:StatusCode', response)!, 'Value')).toBe('urn:oasis:names:tc:SAML:2.0:status:Success');
    const assertion = firstElement('saml:Assertion', response)!;
    // The schema puts the signature right after the Issuer.
    expect(selectElements('*', assertion).map((e) => e.localName)).toEqual(['Issuer', 'Signature', 'Subject', 'Conditions', 'AuthnStatement', 'AttributeStatement']);
    const signature = firstElement('ds:Signature', assertion)!;
    expect(verifies(xml, signature, idp.certificatePem)).toBe(true);
    expect(verifies(xml, signature, stranger.certificatePem)).toBe(false);
    const tampered = xml.replace('>alice@example.org</saml:NameID>', '>eve</saml:NameID>');
    expect(verifies(tampered, firstElement('saml:Assertion/ds:Signature', parseXml(tampered).documentElement)!, idp.certificatePem)).toBe(false);

    expect(text(firstElement('saml:Subject/saml:NameID', assertion)!)).toBe('alice@example.org');
    const confirmation = firstElement('saml:Subject/saml:SubjectConfirmation/saml:SubjectConfirmationData', assertion)!;
    expect({ recipient: attribute(confirmation, 'Recipient'), inResponseTo: attribute(confirmation, 'InResponseTo') }).toEqual({ recipient: ACS, inResponseTo: '_req42' });
    expect(text(firstElement('saml:Conditions/saml:AudienceRestriction/saml:Audience', assertion)!)).toBe(SP_ENTITY);
    const conditions = firstElement('saml:Conditions', assertion)!;
    expect(Date.parse(attribute(conditions, 'NotOnOrAfter')!) - Date.parse(attribute(conditions, 'NotBefore')!)).toBe(300_000);
    const session = attribute(firstElement('saml:AuthnStatement', assertion)!, 'SessionNotOnOrAfter');
    expect(Date.parse(session!) - Date.parse(attribute(assertion, 'IssueInstant')!)).toBe(3_600_000);
  });

  it('sends a multi-valued attribute as one Attribute with several values', () => {
    const xml = Buffer.from(idp.issueResponse({ user: 'alice', acsUrl: ACS, audience: SP_ENTITY }), 'base64').toString('utf8');
    const attributes = selectElements('saml:Assertion/saml:AttributeStatement/saml:Attribute', parseXml(xml).documentElement);
    expect(attributes.map((a) => [attribute(a, 'Name'), selectElements('saml:AttributeValue', a).map(text)])).toEqual([
      ['groups', ['admins', 'staff']],
      ['mail', ['alice@example.org']],
    ]);
  });

  it('signs the Response as well when asked, and sends no assertion for a failure status', async () => {
    const both = await startSamlIdp({ users: { bob: { password: 'b' } }, signResponse: true, sessionLifetimeSeconds: null });
    try {
      const xml = Buffer.from(both.issueResponse({ user: 'bob', acsUrl: ACS, audience: SP_ENTITY }), 'base64').toString('utf8');
      const response = parseXml(xml).documentElement;
      expect(verifies(xml, firstElement('ds:Signature', response)!, both.certificatePem)).toBe(true);
      expect(xml).not.toContain('SessionNotOnOrAfter');
      const failed = parseXml(Buffer.from(both.issueResponse({ user: 'bob', acsUrl: ACS, audience: SP_ENTITY, status: 'Requester' }), 'base64').toString('utf8')).documentElement;
      expect(attribute(firstElement('samlp:Status/samlp:StatusCode', failed)!, 'Value')).toBe('urn:oasis:names:tc:SAML:2.0:status:Requester');
      expect(firstElement('saml:Assertion', failed)).toBeNull();
    } finally {
      await both.close();
    }
  });

  it('listens on the port it is given', async () => {
    const probe = await startSamlIdp({ users: {} });
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const fixed = await startSamlIdp({ users: {}, port });
    try {
      expect(fixed.url).toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(fixed.metadataUrl)).status).toBe(200);
    } finally {
      await fixed.close();
    }
  });
});
