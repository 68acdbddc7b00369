import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSamlIdp } from '../../../testing/login-providers/saml-idp.js';
import type { SamlIdp } from '../../../testing/login-providers/saml-idp.js';
import { createSamlAcs } from './acs.js';
import type { SamlAcs } from './acs.js';
import { parseIdpMetadata } from './idp-metadata.js';
import { expectRefusal, SP, tamper } from './testing/saml-refusals.js';

const users = { alice: { password: 'pw' } };
const idps: SamlIdp[] = [];
let idp: SamlIdp;
let acs: SamlAcs;
beforeAll(async () => {
  idp = await startSamlIdp({ users });
  idps.push(idp);
  acs = createSamlAcs({ metadata: parseIdpMetadata(idp.metadataXml), spEntityId: SP.entityId, arrayAttributes: [] });
});
afterAll(() => Promise.all(idps.map((i) => i.close())));

const issue = (from: SamlIdp) => from.issueResponse({ user: 'alice', acsUrl: SP.acsUrl, audience: SP.entityId });

describe('SAML ACS signature', () => {
  it('accepts the untouched response, so the refusals below are about what was changed', async () => {
    await expect(acs.validate(issue(idp), SP.acsUrl)).resolves.toMatchObject({ sub: 'alice' });
  });

  it('refuses an assertion signed by another key, though it names the configured IdP', async () => {
    const impostor = await startSamlIdp({ users, entityId: idp.entityId });
    idps.push(impostor);
    const response = issue(impostor);
    await expectRefusal(acs.validate(response, SP.acsUrl), 'signature', response, /does not verify with any certificate in the IdP metadata/);
  });

  it('refuses a response whose NameID was changed after signing', async () => {
    const response = tamper(issue(idp), '>alice</saml:NameID>', '>admin</saml:NameID>');
    await expectRefusal(acs.validate(response, SP.acsUrl), 'signature', response);
  });

  it('refuses an attribute added after signing', async () => {
    const response = tamper(issue(idp), '</saml:AuthnStatement>', '</saml:AuthnStatement><saml:AttributeStatement><saml:Attribute Name="role"><saml:AttributeValue>admin</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>');
    await expectRefusal(acs.validate(response, SP.acsUrl), 'signature', response);
  });

  it('refuses an unsigned assertion', async () => {
    const unsigned = await startSamlIdp({ users, signAssertion: false });
    idps.push(unsigned);
    const trusting = createSamlAcs({ metadata: parseIdpMetadata(unsigned.metadataXml), spEntityId: SP.entityId });
    const response = issue(unsigned);
    await expectRefusal(trusting.validate(response, SP.acsUrl), 'signature', response, /assertion is not signed/);
  });

  it('refuses an assertion whose only signature is the Response one (assertions must be signed)', async () => {
    const responseOnly = await startSamlIdp({ users, signAssertion: false, signResponse: true });
    idps.push(responseOnly);
    const trusting = createSamlAcs({ metadata: parseIdpMetadata(responseOnly.metadataXml), spEntityId: SP.entityId });
    const response = issue(responseOnly);
    await expectRefusal(trusting.validate(response, SP.acsUrl), 'signature', response);
  });

  it('cannot be created without a certificate to verify with', () => {
    expect(() => createSamlAcs({ metadata: { ...parseIdpMetadata(idp.metadataXml), certificates: [] }, spEntityId: SP.entityId })).toThrow(/no signing certificate/);
  });

  it('refuses a second, unsigned assertion wrapped around the signed one', async () => {
    const signed = Buffer.from(issue(idp), 'base64').toString('utf8');
    const assertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(signed)?.[0] ?? '';
    const evil = assertion.replace(/ID="_[0-9a-f]+"/, 'ID="_evil"').replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '').replace('>alice<', '>admin<');
    const response = Buffer.from(signed.replace(assertion, `${evil}${assertion}`), 'utf8').toString('base64');
    await expectRefusal(acs.validate(response, SP.acsUrl), 'malformed', response, /holds 2 assertions/);
  });
});
