// The Backends view against the daemon's real control server; health reported through the monitor interface.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiFixture } from '../../../daemon/src/gateway/control/testing/control-api.js';
import type { TestTerminal } from '../testing/terminal.js';

// Colour support is decided when chalk loads; force it so the state colours show up in the frames.
vi.hoisted(() => {
  process.env['FORCE_COLOR'] = '1';
});

const { startApi } = await import('../../../daemon/src/gateway/control/testing/control-api.js');
const { tempDir } = await import('../../../daemon/src/gateway/reload/testing/config-files.js');
const { createControlClient } = await import('../control/control-client.js');
const { LiveStore } = await import('../live/live-store.js');
const { App } = await import('../shell/app.js');
const { renderInTerminal } = await import('../testing/terminal.js');
const { backendsView } = await import('./backends-view.js');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const CONFIG = `server "main" {
  endpoint "/users/**" {
    proxy {
      backend = "users"
    }
  }
  endpoint "/orders" {
    proxy {
      backend = "orders"
    }
  }
  endpoint "/static" {
    proxy {
      backend = "static"
    }
  }
}

definitions {
  backend "users" {
    origin = "http://127.0.0.1:1"
    beta_health {
      path = "/health"
    }
  }
  backend "orders" {
    origin = "http://127.0.0.1:2"
    beta_health {
      path = "/health"
    }
  }
  backend "static" {
    origin = "http://127.0.0.1:3"
  }
}
`;

async function consoleOn(color: boolean, config = CONFIG, size: { columns?: number; rows?: number } = {}): Promise<{ term: TestTerminal; fixture: ApiFixture }> {
  const file = join(tempDir(), 'portico.hcl');
  writeFileSync(file, config);
  const fixture = await startApi([file]);
  const source = createControlClient({ url: fixture.url, token: fixture.token, retryDelayMs: () => 100 });
  const store = new LiveStore(source, await source.fetchStatus());
  store.start();
  const term = renderInTerminal(<App store={store} source={source} views={[backendsView]} color={color} />, size);
  cleanups.push(() => source.close(), () => store.stop(), () => term.instance.unmount());
  return { term, fixture };
}

const fits = (term: TestTerminal): void => {
  expect(term.screen()).toHaveLength(24);
  for (const line of term.screen()) expect(Array.from(line).length, line).toBeLessThanOrEqual(80);
};

/** The styled text of the screen line naming `backend` in the table. */
function rawRow(term: TestTerminal, backend: string): string {
  return term.raw().split('\n').find((l) => l.includes(` ${backend} `) && l.includes('http://')) ?? '';
}

describe('backends view', () => {
  it('lists the backends with their state, last check, failures, latency and origin in 80x24', async () => {
    const { term, fixture } = await consoleOn(false);
    fixture.health.report('users', 'healthy', '', 12);
    await expect.poll(() => term.text()).toMatch(/users\s+● healthy\s+\d+s ago\s+0\s+12 ms\s+http:\/\/127\.0\.0\.1:1/);
    fits(term);
    expect(term.text()).toMatch(/BACKENDS {2}3 backends · 1 healthy/);
    expect(term.text()).toMatch(/orders\s+○ unknown\s+never\s+0\s+-\s+http:\/\/127\.0\.0\.1:2/);
    expect(term.text()).toMatch(/static\s+– unchecked\s+-\s+0\s+-\s+http:\/\/127\.0\.0\.1:3/);
    expect(term.text()).toContain('users: used by /users/**');
    expect(term.text()).toMatch(/\d\d:\d\d:\d\d  users\s+unknown → healthy/);
  });

  it("says the selected backend's endpoints right under the table, under the web's column names", async () => {
    const { term, fixture } = await consoleOn(false);
    fixture.health.report('users', 'healthy', '', 12);
    await expect.poll(() => term.text()).toMatch(/users\s+● healthy/);
    const screen = term.screen();
    expect(screen).toContainEqual(expect.stringMatching(/^ NAME {4}STATE {8}LAST CHECK {2}FAILURES {2}LATENCY {2}ORIGIN\s*$/));
    const lastRow = screen.findIndex((l) => / static\s+– unchecked/.test(l));
    expect(lastRow).toBeGreaterThan(0);
    expect(screen[lastRow + 1]).toBe(' users: used by /users/**');
    fits(term);
  });

  it('turns a backend red live when it goes down, with the change on the timeline', async () => {
    const { term, fixture } = await consoleOn(true);
    fixture.health.report('users', 'healthy');
    await expect.poll(() => term.text()).toMatch(/users\s+● healthy/);
    expect(rawRow(term, 'users')).toContain('\u001B[32m● healthy');

    fixture.health.report('users', 'degraded', 'connect ECONNREFUSED 127.0.0.1:1');
    await expect.poll(() => rawRow(term, 'users')).toContain('\u001B[33m◐ degraded');
    fixture.health.report('users', 'unhealthy', 'connect ECONNREFUSED 127.0.0.1:1');
    await expect.poll(() => rawRow(term, 'users')).toContain('\u001B[31m✗ unhealthy');
    expect(term.text()).toMatch(/users\s+✗ unhealthy\s+\d+s ago\s+2\s+/);
    expect(term.text()).toMatch(/\d\d:\d\d:\d\d {2}users\s+degraded → unhealthy {2}connect ECONNREFUSED/);
    expect(term.text()).toMatch(/\d\d:\d\d:\d\d {2}users\s+healthy → degraded/);
    expect(term.text()).toContain('users: connect ECONNREFUSED 127.0.0.1:1 · used by /users/**');
    expect(rawRow(term, 'orders')).toContain('\u001B[90m○ unknown');
    fits(term);
  });

  it('gives the width of a wide terminal to the origin: a long URL reads whole at 120 columns, the state stays at 80', async () => {
    const origin = 'https://users-service.payments.eu-west-1.prod.internal.example.com:8443'; // 71 characters
    const config = CONFIG.replace('origin = "http://127.0.0.1:3"', `origin = "${origin}"`);
    const { term } = await consoleOn(false, config, { columns: 120, rows: 30 });
    await expect.poll(() => term.text()).toContain(origin);
    expect(term.text()).toMatch(new RegExp(`^ static\\s+– unchecked\\s+-\\s+0\\s+-\\s+${origin.replace(/[.]/g, '\\.')}$`, 'm'));
    expect(term.screen()).toHaveLength(30);
    for (const line of term.screen()) expect(Array.from(line).length, line).toBeLessThanOrEqual(120);
    term.stdout.resize(80, 24);
    await expect.poll(() => term.text()).toMatch(/^ static\s+– unchecked\s+-\s+0\s+-\s+https:\/\/users-service\.\S+…$/m);
    fits(term);
    // FAILURES would cut the origin further: the column is headed FAIL then.
    expect(term.text()).toMatch(/^ NAME\s+STATE\s+LAST CHECK {2}FAIL {2}LATENCY {2}ORIGIN\s*$/m);
  });
});
