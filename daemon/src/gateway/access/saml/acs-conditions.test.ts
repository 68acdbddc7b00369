import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSamlIdp } from '../../../testing/login-providers/saml-idp.js';
import type { SamlIdp } from '../../../testing/login-providers/saml-idp.js';
import { createSamlAcs } from './acs.js';
import type { SamlAcs } from './acs.js';
import { parseIdpMetadata } from './idp-metadata.js';
import { expectRefusal, SP, tamper } from './testing/saml-refusals.js';

const users = { alice: { password: 'pw' } };
let idp: SamlIdp;
let other: SamlIdp;
let acs: SamlAcs;
beforeAll(async () => {
  [idp, other] = await Promise.all([startSamlIdp({ users }), startSamlIdp({ users })]);
  acs = createSamlAcs({ metadata: parseIdpMetadata(idp.metadataXml), spEntityId: SP.entityId, arrayAttributes: [] });
});
afterAll(() => Promise.all([idp.close(), other.close()]));

const minutes = (n: number) => n * 60_000;

describe('SAML ACS conditions', () => {
  it('refuses an assertion for another service provider (audience)', async () => {
    const response = idp.issueResponse({ user: 'alice', acsUrl: SP.acsUrl, audience: 'https://elsewhere.example/sp' });
    await expectRefusal(acs.validate(response, SP.acsUrl), 'audience', response, /Expected: https:\/\/portico\.example\/saml\/sp Received: https:\/\/elsewhere\.example\/sp/);
  });

  it('refuses an assertion whose NotOnOrAfter has passed by more than the skew', async () => {
    const response = idp.issueResponse({ user: 'alice', acsUrl: SP.acsUrl, audience: SP.entityId, now: new Date(Date.now() - minutes(10)) });
    await expectRefusal(acs.validate(response, SP.acsUrl), 'expired', response, /has expired/);
  });

  it('refuses an assertion later than its lifetime, judged at the `now` given', async () => {
    const now = new Date();
    const response = idp.issueResponse({ user: 'alice', acsUrl: SP.acsUrl, audience: SP.entityId, now });
    await expectRefusal(acs.validate(response, SP.acsUrl, new Date(now.getTime() + minutes(6) + 60_000)), 'expired', response);
  });

  it('refuses an assertion that is not valid yet', async () => {
    const now = new Date();
    const response = idp.issueResponse({ user: 'alice', acsUrl: SP.acsUrl, audience: SP.entityId, now, notBefore: new Date(now.getTime() + minutes(5)), notOnOrAfter: new Date(now.getTime() + minutes(10)) });
    await expectRefusal(acs.validate(response, SP.acsUrl, now), 'not_yet_valid', response, /not valid yet/);
  });

  it('refuses an assertion meant for another ACS URL (recipient)', async () => {
    const response = idp.issueResponse({ user: 'alice', acsUrl: 'https://elsewhere.example/acs', audience: SP.entityId });
    await expectRefusal(acs.validate(response, SP.acsUrl), 'recipient', response, /elsewhere\.example\/acs/);
  });

  it('checks the signed bearer Recipient, not only the unsigned Response Destination', async () => {
    const signed = idp.issueResponse({ user: 'alice', acsUrl: 'https://elsewhere.example/acs', audience: SP.entityId });
    const response = tamper(signed, 'Destination="https://elsewhere.example/acs"', `Destination="${SP.acsUrl}"`);
    await expectRefusal(acs.validate(response, SP.acsUrl), 'recipient', response, /assertion is for https:\/\/elsewhere\.example\/acs/);
  });

  it('refuses a response from an IdP other than the metadata one (issuer)', async () => {
    const response = other.issueResponse({ user: 'alice', acsUrl: SP.acsUrl, audience: SP.entityId });
    await expectRefusal(acs.validate(response, SP.acsUrl), 'issuer', response, new RegExp(`issued by "${other.entityId}"`));
  });

  it('refuses a non-success status, saying what the IdP answered', async () => {
    const response = idp.issueResponse({ user: 'alice', acsUrl: SP.acsUrl, audience: SP.entityId, status: 'Responder', statusMessage: 'account locked' });
    await expectRefusal(acs.validate(response, SP.acsUrl), 'status', response, /status Responder: account locked/);
  });

  it('refuses a missing, non-base64 or non-XML response, and a document that is not a Response', async () => {
    await expectRefusal(acs.validate('', SP.acsUrl), 'missing_response', '');
    await expectRefusal(acs.validate('not base64!', SP.acsUrl), 'malformed', '', /not base64/);
    const broken = Buffer.from('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">\n  <oops a="1" a="2"/></samlp:Response>').toString('base64');
    await expectRefusal(acs.validate(broken, SP.acsUrl), 'malformed', broken, /not well-formed XML \(XML syntax error at 2,3: Attribute a redefined\)/);
    const other = Buffer.from('<html><body>Login failed</body></html>').toString('base64');
    await expectRefusal(acs.validate(other, SP.acsUrl), 'malformed', other, /holds <html>/);
  });

  it('refuses a successful response without an assertion', async () => {
    const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_1" Version="2.0" IssueInstant="${new Date().toISOString()}"><saml:Issuer>${idp.entityId}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:Response>`;
    const response = Buffer.from(xml).toString('base64');
    await expectRefusal(acs.validate(response, SP.acsUrl), 'no_assertion', response);
  });

  it('names the refusal with a stable code and class name', async () => {
    const error = await acs.validate('', SP.acsUrl).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'SamlError', code: 'SAML_INVALID', reason: 'missing_response' });
  });
});
