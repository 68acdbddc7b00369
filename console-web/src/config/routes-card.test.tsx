// The Routes and access control card as the browser gets it: login controls with their provider and state.
import type { AccessControlView, LoginView, RoutesView } from '@portico/daemon/control';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { RoutesCard } from './routes-card';

const NOW = new Date(2026, 0, 2, 18, 0, 0).getTime();
const at = (h: number, m: number, s: number, day = 2): string => new Date(2026, 0, day, h, m, s).toISOString();
const DISCOVERY = 'https://login.example.com/.well-known/openid-configuration';
const ok: LoginView = { provider: DISCOVERY, lastError: null, lastErrorAt: null, configurationFetchedAt: at(12, 1, 2), usingCachedConfiguration: false };

function routes(login: LoginView, others: AccessControlView[] = []): RoutesView {
  return {
    routes: [
      { server: 'main', kind: 'endpoint', path: '/oidc/callback', methods: ['GET'], guards: [{ label: 'login', kind: 'oidc' }], permission: null },
      { server: 'main', kind: 'endpoint', path: '/sso/acs', methods: ['POST'], guards: [{ label: 'sso', kind: 'saml' }], permission: null },
    ],
    accessControls: [
      { label: 'login', kind: 'oidc', detail: `OpenID Connect ${DISCOVERY}, client "portico", PKCE or nonce`, login },
      { label: 'sso', kind: 'saml', detail: 'SAML IdP https://idp.example/metadata, SP portico', login: { ...ok, provider: 'https://idp.example/metadata', configurationFetchedAt: null } },
      ...others,
    ],
  };
}

/** The markup of the login control labelled `label` and its text as a reader gets it. */
function row(view: RoutesView, label: string): { html: string; text: string } {
  const html = renderToStaticMarkup(<RoutesCard routes={view} nowMs={NOW} />);
  const tr = new RegExp(`<tr data-login="${label}">.*?</tr>`).exec(html)?.[0] ?? '';
  return { html: tr, text: tr.replace(/<[^>]+>/g, ' ').replace(/&quot;/g, '"').replace(/\s+/g, ' ').trim() };
}

describe('routes card: login controls', () => {
  it('shows each login control with a kind badge, its label, its provider and ok (oidc: when the configuration was fetched)', () => {
    const oidc = row(routes(ok), 'login');
    expect(oidc.text).toBe(`oidc login ${DISCOVERY} OpenID Connect ${DISCOVERY}, client "portico", PKCE or nonce ● ok configuration fetched at 12:01:02`);
    expect(oidc.html).toContain('<span class="kind-badge">oidc</span>');
    expect(oidc.html).toContain('<span class="badge tone-good">');
    expect(row(routes(ok), 'sso').text).toMatch(/^saml sso https:\/\/idp\.example\/metadata .* ● ok$/);
  });

  it('shows the last error with its time and that the cached configuration serves, the error in full on its own line', () => {
    const error = `${DISCOVERY} answered 503: <html>maintenance</html>`;
    const failed = row(routes({ ...ok, lastError: error, lastErrorAt: at(12, 3, 4), usingCachedConfiguration: true }), 'login');
    expect(failed.text).toContain('✗ failed at 12:03:04 · using cached configuration');
    expect(failed.html).toContain('<span class="badge tone-bad">');
    // Text from the provider is text, never markup.
    expect(failed.html).toContain(`<span class="login-error">${DISCOVERY} answered 503: &lt;html&gt;maintenance&lt;/html&gt;</span>`);
    expect(failed.html).toContain(`<time dateTime="${at(12, 3, 4)}" title="2026-01-02 12:03:04">12:03:04</time>`);
    const yesterday = row(routes({ ...ok, lastError: 'token request refused', lastErrorAt: at(23, 59, 0, 1) }), 'login');
    expect(yesterday.text).toContain('✗ failed at 2026-01-01 23:59:00 token request refused');
    expect(yesterday.text).not.toContain('cached');
  });

  it('keeps the other access controls in the list above, and route guards name the new kinds', () => {
    const html = renderToStaticMarkup(<RoutesCard routes={routes(ok, [{ label: 'ops', kind: 'basic_auth', detail: 'password, realm "ops"', login: null }])} nowMs={NOW} />);
    const list = /<ul class="access-controls".*?<\/ul>/.exec(html)?.[0] ?? '';
    expect(list).toContain('<code>ops</code> (basic_auth): password, realm &quot;ops&quot;');
    expect(list).not.toContain('login');
    expect(html).toMatch(/<code>\/oidc\/callback<\/code><\/td><td>endpoint<\/td><td>GET<\/td><td>login \(oidc\)<\/td>/);
    expect(html).toMatch(/<code>\/sso\/acs<\/code><\/td><td>endpoint<\/td><td>POST<\/td><td>sso \(saml\)<\/td>/);
  });

  it("shows a protected api's unrouted paths as a row of their own, saying on hover what they are", () => {
    const view = routes(ok, [{ label: 'ops', kind: 'basic_auth', detail: 'password', login: null }]);
    view.routes.push({ server: 'main', kind: 'unrouted', path: '/admin/**', methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], guards: [{ label: 'ops', kind: 'basic_auth' }], permission: null });
    const html = renderToStaticMarkup(<RoutesCard routes={view} nowMs={NOW} />);
    expect(html).toMatch(/<code>\/admin\/\*\*<\/code><\/td><td title="the paths under this base path that no route takes: 404 once the guards pass">unrouted<\/td><td>all<\/td><td>ops \(basic_auth\)<\/td>/);
    expect(html).toMatch(/<td>endpoint<\/td>/);
  });

  it('says when an oidc configuration has not been fetched yet', () => {
    expect(row(routes({ ...ok, configurationFetchedAt: null }), 'login').text).toMatch(/○ waiting · configuration not fetched yet$/);
  });
});
