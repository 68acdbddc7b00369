import { inflateRawSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { startSamlIdp, type SamlIdp } from '../../testing/login-providers/index.js';
import { freePort } from '../http/testing/test-gateway.js';
import { accessLines, startAccessGateway, type AccessGateway } from './testing/access-gateway.js';

const idps: SamlIdp[] = [];
afterEach(async () => {
  await Promise.all(idps.splice(0).map((i) => i.close()));
});

const USERS = { alice: { password: 'alice-pw', nameId: 'alice@example.test', attributes: { displayName: 'Alice Example', groups: ['staff', 'admins'], mail: ['old@example.test', 'alice@example.test'] } } };

interface Setup {
  readonly idp: SamlIdp;
  readonly gw: AccessGateway;
  readonly port: number;
  readonly acs: string;
}

/** A SAML IdP and a gateway with `/sso` (redirect to the IdP) and `/saml/acs` guarded by the saml control. */
async function setup(extra = '', outside = ''): Promise<Setup> {
  const idp = await startSamlIdp({ users: USERS });
  idps.push(idp);
  const port = await freePort();
  const gw = await startAccessGateway({
    'portico.hcl': `server {
  hosts = ["*:${port}"]
  endpoint "/sso" {
    response {
      status = 303
      headers = { location = saml_sso_url("sso") }
    }
  }
  endpoint "/saml/acs" {
    access_control = ["sso"]
    response {
      json_body = request.context.sso
    }
  }
}
definitions {
  saml "sso" {
    idp_metadata_file = "idp.xml"
    sp_entity_id = "portico-sp"
    sp_acs_url = "/saml/acs"
    array_attributes = ["groups", "memberOf"]
${extra}
  }
}
${outside}`,
    'idp.xml': idp.metadataXml,
  });
  return { idp, gw, port, acs: `http://127.0.0.1:${port}/saml/acs` };
}

function post(s: Setup, samlResponse: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(s.acs, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams({ SAMLResponse: samlResponse }).toString() });
}

describe('saml', () => {
  it('redirects to the IdP with an AuthnRequest for this SP and its ACS URL', async () => {
    const s = await setup();
    const res = await fetch(`http://127.0.0.1:${s.port}/sso`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(s.idp.ssoUrl);
    const request = inflateRawSync(Buffer.from(location.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
    expect(request).toContain(`AssertionConsumerServiceURL="${s.acs}"`);
    expect(request).toMatch(/<saml:Issuer[^>]*>portico-sp<\/saml:Issuer>/);
  });

  it('signs in through the IdP: sub, exp and attributes in request.context (array_attributes always lists)', async () => {
    const s = await setup('    custom_log_fields = { name = request.context.sso.attributes.displayName }');
    const location = (await fetch(`http://127.0.0.1:${s.port}/sso`, { redirect: 'manual' })).headers.get('location') ?? '';
    const login = await s.idp.login(location, 'alice', 'alice-pw');
    expect(login.acsUrl).toBe(s.acs);
    const res = await post(s, login.samlResponse);
    expect(res.status).toBe(200);
    const context = (await res.json()) as { sub: string; exp: number; attributes: Record<string, unknown> };
    expect(context.sub).toBe('alice@example.test');
    expect(context.exp).toBeGreaterThan(Date.now() / 1000 + 3000);
    // groups is listed: a list; memberOf is listed but absent: an empty list; mail is not listed: its last value.
    expect(context.attributes).toEqual({ displayName: 'Alice Example', groups: ['staff', 'admins'], memberOf: [], mail: 'alice@example.test' });
    expect(accessLines(s.gw).at(-1)).toMatchObject({ status: 200, auth_user: 'alice@example.test', custom: { name: 'Alice Example' } });
  });

  it('resolves a relative sp_acs_url against the forwarded origin when accept_forwarded_url allows it, and checks the response against it', async () => {
    const s = await setup('', 'settings {\n  accept_forwarded_url = ["proto", "host"]\n}\n');
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'sso.example.test' };
    const outside = 'https://sso.example.test/saml/acs';
    const res = await fetch(`http://127.0.0.1:${s.port}/sso`, { redirect: 'manual', headers: forwarded });
    const location = res.headers.get('location') ?? '';
    const request = inflateRawSync(Buffer.from(new URL(location).searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
    expect(request).toContain(`AssertionConsumerServiceURL="${outside}"`);
    const login = await s.idp.login(location, 'alice', 'alice-pw');
    expect(login.acsUrl).toBe(outside);
    // The same response reaching the ACS without the forwarded headers is for another URL.
    const direct = await post(s, login.samlResponse);
    expect(direct.status).toBe(403);
    expect(accessLines(s.gw).at(-1)).toMatchObject({ error_type: 'saml', message: `saml "sso": the response is addressed to ${outside}, not to this ACS URL ${s.acs}` });
    const res2 = await post(s, login.samlResponse, forwarded);
    expect(res2.status).toBe(200);
    expect(((await res2.json()) as { sub: string }).sub).toBe('alice@example.test');
  });

  it('refuses a replayed response, an expired one, one for another audience, and one signed by another IdP (error type saml, 403)', async () => {
    const s = await setup();
    const fresh = s.idp.issueResponse({ user: 'alice', acsUrl: s.acs, audience: 'portico-sp' });
    expect((await post(s, fresh)).status).toBe(200);
    const cases: [string, string, RegExp][] = [['replayed', fresh, /replay|already/i]];
    const past = new Date(Date.now() - 3_600_000);
    cases.push(['expired', s.idp.issueResponse({ user: 'alice', acsUrl: s.acs, audience: 'portico-sp', now: past, notBefore: past, notOnOrAfter: new Date(past.getTime() + 300_000) }), /expired|NotOnOrAfter/i]);
    cases.push(['audience', s.idp.issueResponse({ user: 'alice', acsUrl: s.acs, audience: 'another-sp' }), /not meant for this service provider/]);
    const other = await startSamlIdp({ users: USERS, entityId: s.idp.entityId });
    idps.push(other);
    cases.push(['foreign signature', other.issueResponse({ user: 'alice', acsUrl: s.acs, audience: 'portico-sp' }), /signature/i]);
    for (const [name, response, message] of cases) {
      const res = await post(s, response);
      expect(res.status, name).toBe(403);
      expect(res.headers.get('gateway-error'), name).toBe('access control error');
      const line = accessLines(s.gw).at(-1);
      expect(line?.['error_type'], name).toBe('saml');
      expect(String(line?.['message']), name).toMatch(message);
    }
    expect(s.gw.denials.map((d) => d.type)).toEqual(['saml', 'saml', 'saml', 'saml']);
    expect(s.gw.access().loginStatus()[0]).toMatchObject({ kind: 'saml', provider: s.idp.entityId });
    expect(s.gw.access().loginStatus()[0]?.lastError).toMatch(/signature/i);
  });

  it('refuses a GET or a post without SAMLResponse; an error_handler saml answers instead', async () => {
    // `saml2`, the peer's older name for the type, is taken as `saml`.
    const s = await setup('    error_handler "saml2" {\n      response {\n        status = 401\n        body = "sign-in failed"\n      }\n    }');
    const get = await fetch(s.acs);
    expect(get.status).toBe(401);
    expect(await get.text()).toBe('sign-in failed');
    expect(accessLines(s.gw).at(-1)?.['message']).toMatch(/wrong method: GET/);
    const empty = await fetch(s.acs, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'RelayState=x' });
    expect(empty.status).toBe(401);
    expect(accessLines(s.gw).at(-1)?.['message']).toMatch(/missing SAMLResponse/);
  });
});
