import { describe, expect, it } from 'vitest';
import { backendsHcl, openDelta, startCds } from './testing/cds-fixture.js';

const abc = backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.2"', c: '    origin = "http://10.0.0.3"' });

describe('DeltaClusters reconnect with initial_resource_versions', () => {
  it('sends only clusters whose version differs from what the client holds, and removes the ones gone', async () => {
    const cds = await startCds();
    await cds.apply(abc);
    const held = Object.fromEntries(['a', 'b'].map((n) => [n, cds.catalog.current.byName.get(n)!.version]));
    const stream = openDelta(cds.address);
    stream.send({ node: { id: 'envoy-1' }, initial_resource_versions: { ...held, b: 'stale-version', gone: 'v0' } });
    const first = await stream.nth(1);
    expect(first.resources.map((r) => r.name)).toEqual(['b', 'c']);
    expect(first.removed_resources).toEqual(['gone']);
  });

  it('sends nothing when the client already holds every cluster', async () => {
    const cds = await startCds();
    await cds.apply(abc);
    const held = Object.fromEntries(cds.catalog.current.resources.map((r) => [r.name, r.version]));
    const stream = openDelta(cds.address);
    stream.send({ node: { id: 'envoy-1' }, resource_names_subscribe: ['*'], initial_resource_versions: held });
    await expect.poll(() => cds.registry.list()[0]?.subscriptions.wildcard).toBe(true);
    await cds.apply(backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.2"', c: '    origin = "http://10.0.0.4"' }));
    const first = await stream.nth(1);
    expect(first.resources.map((r) => r.name)).toEqual(['c']);
  });
});
