// The Config view's routes pane (a) shows each login control's provider and its state, against
// the daemon's real control server; the login controls' state is set by the test.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LoginApi, LoginStatus } from '../testing/login-api.js';
import type { TestTerminal } from '../testing/terminal.js';

// Colour support is decided when chalk loads; force it so the state colours show up in the frames.
vi.hoisted(() => {
  process.env['FORCE_COLOR'] = '1';
});

const { tempDir } = await import('../../../daemon/src/gateway/reload/testing/config-files.js');
const { createControlClient } = await import('../control/control-client.js');
const { LiveStore } = await import('../live/live-store.js');
const { App } = await import('../shell/app.js');
const { startLoginApi } = await import('../testing/login-api.js');
const { renderInTerminal } = await import('../testing/terminal.js');
const { configView } = await import('./config-view.js');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const DISCOVERY = 'https://login.example.com/.well-known/openid-configuration';
const SECRETS = ['op-client-secret-7f3a', 'gh-client-secret-9c1d', 'hs-key-secret'];

const CONFIG = `server "main" {
  endpoint "/login" {
    response {
      status = 303
      headers = { location = oauth2_authorization_url("op") }
    }
  }
  endpoint "/oidc/callback" {
    access_control = ["op"]
    response {
      body = "in"
    }
  }
  endpoint "/api/**" {
    access_control = ["tok", "gh"]
    response {
      body = "x"
    }
  }
}
definitions {
  oidc "op" {
    configuration_url = "${DISCOVERY}"
    client_id = "portico"
    client_secret = "${SECRETS[0]}"
    redirect_uri = "/oidc/callback"
    verifier_value = request.cookies.pkcecv
  }
  beta_oauth2 "gh" {
    authorization_endpoint = "https://github.example/login/oauth/authorize"
    token_endpoint = "https://github.example/login/oauth/access_token"
    redirect_uri = "/gh/callback"
    grant_type = "authorization_code"
    client_id = "cid"
    client_secret = "${SECRETS[1]}"
    verifier_method = "state"
    verifier_value = request.cookies.st
  }
  jwt "tok" {
    signature_algorithm = "HS256"
    key = "${SECRETS[2]}"
  }
}
`;

/** Local time today (or `daysAgo` days before) as epoch ms. */
function localTime(hours: number, minutes: number, seconds: number, daysAgo = 0): number {
  const d = new Date();
  d.setDate(d.getDate() - daysAgo);
  d.setHours(hours, minutes, seconds, 0);
  return d.getTime();
}

const okOidc = (): LoginStatus => ({ label: 'op', kind: 'oidc', provider: DISCOVERY, lastError: null, lastErrorAt: null, configurationFetchedAt: localTime(0, 1, 2), usingCachedConfiguration: false });
const okOauth2 = (): LoginStatus => ({ label: 'gh', kind: 'beta_oauth2', provider: 'https://github.example', lastError: null, lastErrorAt: null, configurationFetchedAt: null, usingCachedConfiguration: false });

async function consoleOn(size = { columns: 80, rows: 24 }): Promise<{ term: TestTerminal; api: LoginApi }> {
  const file = join(tempDir(), 'portico.hcl');
  writeFileSync(file, CONFIG);
  const api = await startLoginApi([file]);
  api.logins = [okOidc(), okOauth2()];
  const source = createControlClient({ url: api.url, token: api.token, retryDelayMs: () => 100 });
  const store = new LiveStore(source, await source.fetchStatus());
  store.start();
  const term = renderInTerminal(<App store={store} source={source} views={[configView]} color />, size);
  cleanups.push(() => api.close(), () => source.close(), () => store.stop(), () => term.instance.unmount());
  await expect.poll(() => term.text()).toContain('✓ applied (start)');
  await term.press('a');
  await expect.poll(() => term.text()).toContain('routes (3, 1 open) and their access controls');
  return { term, api };
}

function fits(term: TestTerminal, columns: number, rows: number): void {
  expect(term.screen()).toHaveLength(rows);
  for (const line of term.screen()) expect(Array.from(line).length, line).toBeLessThanOrEqual(columns);
}

/** The screen line containing `text`, with its colour codes. */
const rawLine = (term: TestTerminal, text: string): string => term.raw().split('\n').find((l) => l.replace(/\u001B\[[0-9;]*m/g, '').includes(text)) ?? '';

describe('config view: login controls', () => {
  it('names each login control with its kind and provider and says ok (oidc: when the configuration was fetched), in 80x24, no secret', async () => {
    const { term } = await consoleOn();
    const text = term.text();
    expect(text).toContain(`   op (oidc): ${DISCOVERY}\n     ● ok · configuration fetched at 00:01:02\n`);
    expect(text).toContain('   gh (beta_oauth2): https://github.example\n     ● ok\n');
    expect(text).toContain('   tok (jwt): Authorization bearer, HS256 key\n');
    expect(rawLine(term, '● ok · configuration fetched')).toContain('\u001B[32m● ok');
    // Route rows name their guards (kinds are above); the new kinds guard like the old.
    expect(text).toMatch(/\/oidc\/callback\s+endpoint\s+\*\s+op\n/);
    expect(text).toMatch(/\/api\/\*\*\s+endpoint\s+\*\s+tok, gh\n/);
    expect(text).toMatch(/\/login\s+endpoint\s+\*\s+open/);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    fits(term, 80, 24);
  });

  it('shows a provider failure by itself within 5 s: the error with its local time and that the cached configuration serves, wrapped to be read whole', async () => {
    const { term, api } = await consoleOn();
    const error = `${DISCOVERY} answered 503: {"error":"temporarily_unavailable","error_description":"the identity provider is down for maintenance"}`;
    api.logins = [{ ...okOidc(), lastError: error, lastErrorAt: localTime(12, 1, 9), usingCachedConfiguration: true }, okOauth2()];
    await expect.poll(() => term.text(), { timeout: 8_000 }).toContain('✗ failed at 12:01:09, using cached configuration:');
    const lines = term.screen();
    const first = lines.findIndex((l) => l.includes('✗ failed at 12:01:09'));
    // The error is shown whole over the lines under the control, none wider than the terminal.
    const under = lines.slice(first);
    const shown = under.slice(0, under.findIndex((l) => !l.startsWith('     '))).join('');
    expect(shown.replace(/\s+/g, '')).toContain(`usingcachedconfiguration:${error}`.replace(/\s+/g, ''));
    expect(shown).not.toContain('…');
    expect(rawLine(term, '✗ failed at 12:01:09')).toContain('\u001B[31m');
    expect(lines[first - 1]).toBe(`   op (oidc): ${DISCOVERY}`);
    expect(term.text()).toContain('   gh (beta_oauth2): https://github.example\n     ● ok\n');
    for (const secret of SECRETS) expect(term.text()).not.toContain(secret);
    fits(term, 80, 24);

    api.logins = [okOidc(), okOauth2()];
    await expect.poll(() => term.text(), { timeout: 8_000 }).not.toContain('✗ failed');
    expect(term.text()).toContain('● ok · configuration fetched at 00:01:02');
  });

  it('dates an error from another day, and makes control characters in it harmless', async () => {
    const { term, api } = await consoleOn({ columns: 120, rows: 30 });
    const yesterday = new Date(localTime(23, 59, 58, 1));
    const day = `${yesterday.getFullYear()}-${String(yesterday.getMonth() + 1).padStart(2, '0')}-${String(yesterday.getDate()).padStart(2, '0')}`;
    api.logins = [okOidc(), { ...okOauth2(), lastError: 'requesting the token failed: \u001B[2Jinvalid_client', lastErrorAt: yesterday.getTime() }];
    await expect.poll(() => term.text(), { timeout: 8_000 }).toContain(`     ✗ failed at ${day} 23:59:58: requesting the token failed:  [2Jinvalid_client\n`);
    expect(term.raw()).not.toContain('\u001B[2J');
    expect(term.text()).toContain(`   op (oidc): ${DISCOVERY}\n     ● ok · configuration fetched at 00:01:02\n`);
    fits(term, 120, 30);
  });

  it('keeps the routes table in a short terminal: one line per control, its state cut with …', async () => {
    const { term, api } = await consoleOn({ columns: 80, rows: 14 });
    const long = `discovery failed: ${'the provider answered something long and unhelpful '.repeat(4)}`;
    api.logins = [{ ...okOidc(), lastError: long, lastErrorAt: localTime(8, 0, 0) }, { ...okOauth2(), lastError: long, lastErrorAt: localTime(8, 0, 1) }];
    await expect.poll(() => term.text(), { timeout: 8_000 }).toContain('   gh (beta_oauth2) ✗ failed at 08:00:01: discovery failed: the provider');
    const failed = term.screen().filter((l) => l.includes('✗ failed at'));
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatch(/^ {3}op \(oidc\) ✗ failed at 08:00:00: discovery failed: .*…$/);
    for (const line of failed) expect(line).toMatch(/…$/);
    expect(term.text()).toContain('   tok (jwt): Authorization bearer, HS256 key');
    for (const route of ['/api/**', '/login', '/oidc/callback']) expect(term.text()).toContain(` ${route} `);
    fits(term, 80, 14);
  });
});
