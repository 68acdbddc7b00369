// What the Config view's routes pane says about each access control, and how it gives way in a small terminal.
import type { AccessControlView, LoginView } from '@portico/daemon/control';
import { describe, expect, it } from 'vitest';
import { accessControlLines, loginState } from './access-control-lines.js';

const at = (h: number, m: number, s: number, day = 2): string => new Date(2026, 0, day, h, m, s).toISOString();
const NOW = new Date(2026, 0, 2, 18, 0, 0).getTime();
const ok: LoginView = { provider: 'https://op.example/.well-known/openid-configuration', lastError: null, lastErrorAt: null, configurationFetchedAt: at(12, 1, 0), usingCachedConfiguration: false };
const text = (s: ReturnType<typeof loginState>): string => `${s.glyph} ${s.word}${s.rest}`;

describe('login control state', () => {
  it('says ok, for oidc with the time the configuration in use was fetched', () => {
    expect(text(loginState('oidc', ok, NOW))).toBe('● ok · configuration fetched at 12:01:00');
    expect(loginState('oidc', ok, NOW).tone).toBe('good');
    expect(text(loginState('saml', { ...ok, configurationFetchedAt: null }, NOW))).toBe('● ok');
    expect(text(loginState('oidc', { ...ok, configurationFetchedAt: null }, NOW))).toBe('○ waiting: configuration not fetched yet');
  });

  it('gives the last error with its local time, the date when not today, and whether the cached configuration serves', () => {
    const failed = { ...ok, lastError: 'https://op.example/.well-known/openid-configuration answered 503', lastErrorAt: at(12, 3, 4), usingCachedConfiguration: true };
    expect(text(loginState('oidc', failed, NOW))).toBe('✗ failed at 12:03:04, using cached configuration: https://op.example/.well-known/openid-configuration answered 503');
    expect(loginState('oidc', failed, NOW).tone).toBe('bad');
    expect(text(loginState('beta_oauth2', { ...failed, usingCachedConfiguration: false, lastErrorAt: at(23, 59, 0, 1) }, NOW))).toBe(
      '✗ failed at 2026-01-01 23:59:00: https://op.example/.well-known/openid-configuration answered 503',
    );
    expect(text(loginState('saml', { ...failed, lastError: 'refused\u001B[2J assertion', usingCachedConfiguration: false }, NOW))).toBe('✗ failed at 12:03:04: refused [2J assertion');
  });
});

describe('access control lines', () => {
  const controls: AccessControlView[] = [
    { label: 'op', kind: 'oidc', detail: 'OpenID Connect …', login: { ...ok, lastError: `discovery failed: ${'word '.repeat(40)}end`, lastErrorAt: at(9, 0, 0) } },
    { label: 'ops', kind: 'basic_auth', detail: 'password, realm "ops"', login: null },
  ];
  const shown = (lines: ReturnType<typeof accessControlLines>): string[] => lines.map((l) => l.lead + l.text);

  it('puts the provider on the control line and the whole error under it when there is room', () => {
    const lines = shown(accessControlLines(controls, 60, NOW, 20));
    expect(lines[0]).toBe('   op (oidc): https://op.example/.well-known/openid-configuration'.slice(0, 59) + '…');
    expect(lines.slice(1, -1).every((l) => l.startsWith('     '))).toBe(true);
    expect(lines.slice(1, -1).join(' ').replace(/\s+/g, ' ')).toContain(`${'word '.repeat(40)}end`);
    expect(lines.at(-1)).toBe('   ops (basic_auth): password, realm "ops"');
    for (const l of lines) expect(Array.from(l).length).toBeLessThanOrEqual(60);
  });

  it('gives way when short of room: fewer error lines, then one line per control, then a note of what is cut', () => {
    expect(accessControlLines(controls, 60, NOW, 6)).toHaveLength(5);
    expect(shown(accessControlLines(controls, 60, NOW, 3))).toEqual(['   op (oidc): https://op.example/.well-known/openid-configu…', '     ✗ failed at 09:00:00: discovery failed: word word word…', '   ops (basic_auth): password, realm "ops"']);
    const one = accessControlLines(controls, 60, NOW, 2);
    expect(shown(one)).toEqual(['   op (oidc) ✗ failed at 09:00:00: discovery failed: word w…', '   ops (basic_auth): password, realm "ops"']);
    expect(one[0]).toMatchObject({ lead: '   op (oidc) ', tone: 'bad' });
    expect(shown(accessControlLines(controls, 60, NOW, 1))).toEqual(['   … 2 more access controls; a taller terminal shows them']);
  });
});
