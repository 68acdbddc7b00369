import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSamlIdp } from '../../../testing/login-providers/saml-idp.js';
import type { SamlIdp } from '../../../testing/login-providers/saml-idp.js';
import { createSamlAcs } from './acs.js';
import { parseIdpMetadata } from './idp-metadata.js';
import { samlSsoUrl } from './sso-url.js';
import { expectRefusal, SP } from './testing/saml-refusals.js';

const users = {
  alice: { password: 'wonderland', nameId: 'alice@example.org', attributes: { groups: ['admins', 'staff'], mail: ['old@example.org', 'alice@example.org'], displayName: 'Alice' } },
  bob: { password: 'builder', attributes: { groups: 'staff' } },
};

let idp: SamlIdp;
beforeAll(async () => {
  idp = await startSamlIdp({ users });
});
afterAll(() => idp.close());

const acsFor = (arrayAttributes: string[] = ['groups', 'roles']) => createSamlAcs({ metadata: parseIdpMetadata(idp.metadataXml), spEntityId: SP.entityId, arrayAttributes });

describe('SAML ACS grant', () => {
  it('grants sub (NameID), exp (SessionNotOnOrAfter in UNIX seconds) and the attributes of an IdP-initiated response', async () => {
    const now = new Date();
    const session = new Date(now.getTime() + 3_600_500);
    const response = idp.issueResponse({ user: 'alice', acsUrl: SP.acsUrl, audience: SP.entityId, now, sessionNotOnOrAfter: session });
    expect(Buffer.from(response, 'base64').toString()).not.toContain('InResponseTo');
    const grant = await acsFor().validate(response, SP.acsUrl);
    expect(grant).toEqual({
      sub: 'alice@example.org',
      exp: Math.floor(session.getTime() / 1000),
      // array_attributes stay arrays, absent ones empty; the others keep their last value.
      attributes: { groups: ['admins', 'staff'], roles: [], mail: 'alice@example.org', displayName: 'Alice' },
      issuer: idp.entityId,
      assertionId: expect.stringMatching(/^_[0-9a-f]+$/),
    });
  });

  it('makes a single value of an array attribute an array of one', async () => {
    const grant = await acsFor(['groups', 'mail']).validate(idp.issueResponse({ user: 'bob', acsUrl: SP.acsUrl, audience: SP.entityId }), SP.acsUrl);
    expect(grant.sub).toBe('bob');
    expect(grant.attributes).toEqual({ groups: ['staff'], mail: [] });
  });

  it('accepts a SP-initiated login through the IdP form, answering the AuthnRequest', async () => {
    const login = await idp.login(samlSsoUrl(idp, SP), 'alice', 'wonderland');
    expect(Buffer.from(login.samlResponse, 'base64').toString()).toMatch(/InResponseTo="_[0-9a-f]+"/);
    expect(login.acsUrl).toBe(SP.acsUrl);
    const grant = await acsFor().validate(login.samlResponse, login.acsUrl);
    expect(grant.sub).toBe('alice@example.org');
  });

  it('has exp null when the IdP sets no SessionNotOnOrAfter', async () => {
    const response = idp.issueResponse({ user: 'bob', acsUrl: SP.acsUrl, audience: SP.entityId, sessionNotOnOrAfter: null });
    expect(Buffer.from(response, 'base64').toString()).not.toContain('SessionNotOnOrAfter');
    expect((await acsFor().validate(response, SP.acsUrl)).exp).toBeNull();
  });

  it('accepts a response whose Response element is signed too', async () => {
    const both = await startSamlIdp({ users, signResponse: true });
    try {
      const acs = createSamlAcs({ metadata: parseIdpMetadata(both.metadataXml), spEntityId: SP.entityId, arrayAttributes: [] });
      const grant = await acs.validate(both.issueResponse({ user: 'bob', acsUrl: SP.acsUrl, audience: SP.entityId }), SP.acsUrl);
      expect(grant.sub).toBe('bob');
    } finally {
      await both.close();
    }
  });

  it('tolerates the clock skew (60 s by default) and no more', async () => {
    const now = new Date();
    const early = idp.issueResponse({ user: 'bob', acsUrl: SP.acsUrl, audience: SP.entityId, now, notBefore: new Date(now.getTime() + 50_000) });
    await expect(acsFor().validate(early, SP.acsUrl, now)).resolves.toMatchObject({ sub: 'bob' });
    const tooEarly = idp.issueResponse({ user: 'bob', acsUrl: SP.acsUrl, audience: SP.entityId, now, notBefore: new Date(now.getTime() + 70_000) });
    await expectRefusal(acsFor().validate(tooEarly, SP.acsUrl, now), 'not_yet_valid', tooEarly);
    const strict = createSamlAcs({ metadata: parseIdpMetadata(idp.metadataXml), spEntityId: SP.entityId, arrayAttributes: [], clockSkewMs: 0 });
    const slightlyEarly = idp.issueResponse({ user: 'bob', acsUrl: SP.acsUrl, audience: SP.entityId, now, notBefore: new Date(now.getTime() + 1_000) });
    await expectRefusal(strict.validate(slightlyEarly, SP.acsUrl, now), 'not_yet_valid', slightlyEarly);
  });
});
