// The Clusters view against the daemon's real control server over a real CDS with real gRPC clients.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClustersApiFixture } from '../../../daemon/src/cds/testing/clusters-api.js';
import type { TestTerminal } from '../testing/terminal.js';

// Colour support is decided when chalk loads; force it so the health colours show up in the frames.
vi.hoisted(() => {
  process.env['FORCE_COLOR'] = '1';
});

const { startClustersApi } = await import('../../../daemon/src/cds/testing/clusters-api.js');
const { backendsHcl, openSotw } = await import('../../../daemon/src/cds/testing/cds-fixture.js');
const { createControlClient } = await import('../control/control-client.js');
const { LiveStore } = await import('../live/live-store.js');
const { App } = await import('../shell/app.js');
const { renderInTerminal } = await import('../testing/terminal.js');
const { clustersView } = await import('./clusters-view.js');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const unhealthy = { state: 'unhealthy', healthy: false, error: '', lastCheckAt: null, failures: 2, latencyMs: null, since: '', checked: true } as const;
const healthy = { ...unhealthy, state: 'healthy', healthy: true } as const;

async function consoleOn(size: { columns?: number; rows?: number } = {}): Promise<{ term: TestTerminal; fixture: ClustersApiFixture }> {
  const fixture = await startClustersApi();
  const source = createControlClient({ url: fixture.url, token: fixture.token, retryDelayMs: () => 100 });
  const store = new LiveStore(source, await source.fetchStatus());
  store.start();
  const term = renderInTerminal(<App store={store} source={source} views={[clustersView]} color />, size);
  cleanups.push(() => source.close(), () => store.stop(), () => term.instance.unmount());
  return { term, fixture };
}

const row = (term: TestTerminal, name: string): string => term.raw().split('\n').find((l) => l.includes(` ${name} `)) ?? '';

describe('clusters view', () => {
  it('shows clusters with colored health and connected clients with their NACK, live, in 80x24', async () => {
    const { term, fixture } = await consoleOn();
    const { cds } = fixture;
    await cds.apply(backendsHcl({ api: '    origin = "https://10.0.0.1:8443"', web: '    origin = "http://web.internal"' }), { api: healthy });
    // Neither backend has beta_health: their health is not from a check, and the row says so.
    await expect.poll(() => term.text()).toMatch(/api\s+STATIC\s+● HEALTHY not checked\s+10\.0\.0\.1:8443 tls/);
    expect(term.text()).toMatch(/web\s+STRICT_DNS\s+○ UNKNOWN not checked\s+web\.internal:80/);
    expect(term.text()).toContain(`version ${cds.catalog.current.version.slice(0, 8)} · 2 clusters · 0 clients`);
    expect(row(term, 'api')).toContain('\u001B[32m● HEALTHY');

    await cds.apply(backendsHcl({ api: '    origin = "https://10.0.0.1:8443"', web: '    origin = "http://web.internal"' }), { api: unhealthy });
    await expect.poll(() => row(term, 'api')).toContain('\u001B[31m✗ UNHEALTHY');

    const stream = openSotw(cds.address);
    stream.send({ node: { id: 'edge-proxy-1' } });
    const first = await stream.nth(1);
    stream.send({ response_nonce: first.nonce, error_detail: { code: 13, message: 'unsupported transport socket' } });
    await expect.poll(() => term.text()).toMatch(/edge-proxy-1\s+sotw\s+\*\s+[0-9a-f]{8}\s+NACK [0-9a-f]{6} \d+s\s+unsupported/);
    expect(row(term, 'edge-proxy-1')).toContain('\u001B[31mNACK');
    expect(term.text()).toMatch(/NACK from edge-proxy-1 of [0-9a-f]{8} \(code 13\): unsupported transport socket/);
    expect(term.screen()).toHaveLength(24);
    for (const line of term.screen()) expect(Array.from(line).length, line).toBeLessThanOrEqual(80);

    stream.cancel();
    await expect.poll(() => term.text()).toContain('No proxy is connected.');
  });

  it('tells a health from a check apart from one never checked (no beta_health)', async () => {
    const { term, fixture } = await consoleOn();
    await fixture.cds.apply(
      backendsHcl({ api: '    origin = "https://10.0.0.1:8443"\n    beta_health {\n      path = "/health"\n    }', web: '    origin = "http://web.internal"' }),
      { api: healthy, web: healthy },
    );
    await expect.poll(() => term.text()).toMatch(/^ api\s+STATIC\s+● HEALTHY\s+10\.0\.0\.1:8443 tls\s*$/m);
    expect(term.text()).toMatch(/^ web\s+STRICT_DNS\s+● HEALTHY not checked\s+web\.internal:80\s*$/m);
    expect(row(term, 'web')).toContain('\u001B[32m● HEALTHY not checked');
  });

  it('uses a wide terminal for long node ids and origins, the NACK error text in the last column', async () => {
    const { term, fixture } = await consoleOn({ columns: 120, rows: 30 });
    const { cds } = fixture;
    const host = 'api-gateway-primary.eu-west-1.prod.internal.example.com';
    await cds.apply(backendsHcl({ api: `    origin = "https://${host}:8443"`, web: '    origin = "http://web.internal"' }), { api: healthy });
    await expect.poll(() => term.text()).toContain(`${host}:8443 tls`);
    const node = 'edge-proxy-eu-west-1-az-b-0042.example';
    const stream = openSotw(cds.address);
    stream.send({ node: { id: node } });
    const first = await stream.nth(1);
    stream.send({ response_nonce: first.nonce, error_detail: { code: 3, message: 'cluster api: transport socket envoy.transport_sockets.tls is not supported here' } });
    await expect.poll(() => term.text()).toMatch(/^ NODE\s+KIND\s+SUBS\s+SENT\s+ACK\/NACK\s+ERROR\s*$/m);
    expect(term.text()).toMatch(new RegExp(`^ ${node.replace(/\./g, '\\.')}\\s+sotw\\s+\\*\\s+[0-9a-f]{8}\\s+NACK [0-9a-f]{6} \\d+s\\s+cluster api: transport socket`, 'm'));
    expect(term.screen()).toHaveLength(30);
    for (const line of term.screen()) expect(Array.from(line).length, line).toBeLessThanOrEqual(120);
    stream.cancel();
  });
});
