import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSamlIdp } from '../../../testing/login-providers/saml-idp.js';
import type { SamlIdp } from '../../../testing/login-providers/saml-idp.js';
import { createSamlAcs } from './acs.js';
import { parseIdpMetadata } from './idp-metadata.js';
import { expectRefusal, SP } from './testing/saml-refusals.js';

let idp: SamlIdp;
beforeAll(async () => {
  idp = await startSamlIdp({ users: { alice: { password: 'pw' } } });
});
afterAll(() => idp.close());

const newAcs = (replayCacheSize?: number) =>
  createSamlAcs({ metadata: parseIdpMetadata(idp.metadataXml), spEntityId: SP.entityId, arrayAttributes: [], ...(replayCacheSize === undefined ? {} : { replayCacheSize }) });
const issue = (now = new Date()) => idp.issueResponse({ user: 'alice', acsUrl: SP.acsUrl, audience: SP.entityId, now });

describe('SAML ACS replay protection', () => {
  it('refuses a response used a second time and accepts a fresh one', async () => {
    const acs = newAcs();
    const response = issue();
    const first = await acs.validate(response, SP.acsUrl);
    const error = await expectRefusal(acs.validate(response, SP.acsUrl), 'replayed', response);
    expect(error.message).toContain(first.assertionId);
    await expect(acs.validate(issue(), SP.acsUrl)).resolves.toMatchObject({ sub: 'alice' });
  });

  it('refuses the second of two concurrent uses of one response', async () => {
    const acs = newAcs();
    const response = issue();
    const results = await Promise.allSettled([acs.validate(response, SP.acsUrl), acs.validate(response, SP.acsUrl)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('keeps the latest assertion IDs when the cache is full', async () => {
    const acs = newAcs(2);
    const [a, b, c] = [issue(), issue(), issue()];
    for (const r of [a, b, c]) await acs.validate(r, SP.acsUrl);
    await expectRefusal(acs.validate(c, SP.acsUrl), 'replayed', c);
    await expectRefusal(acs.validate(b, SP.acsUrl), 'replayed', b);
    // a fell out of the bounded cache: the documented cost of the bound.
    await expect(acs.validate(a, SP.acsUrl)).resolves.toMatchObject({ sub: 'alice' });
  });
});

describe('SAML replay protection across reloads', () => {
  it('refuses a response used before the configuration was applied again (a new ACS for the same IdP)', async () => {
    const before = newAcs();
    const response = issue();
    await before.validate(response, SP.acsUrl);
    const afterReload = newAcs();
    await expectRefusal(afterReload.validate(response, SP.acsUrl), 'replayed', response);
  });
});
