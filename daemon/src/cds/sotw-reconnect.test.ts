import { describe, expect, it } from 'vitest';
import { backendsHcl, clusterNames, openSotw, startCds } from './testing/cds-fixture.js';

const v1 = backendsHcl({ a: '    origin = "http://10.0.0.1"' });
const v2 = backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.2"' });

describe('StreamClusters reconnect', () => {
  it('sends nothing to a client reconnecting with the current version, and pushes the next one', async () => {
    const cds = await startCds();
    await cds.apply(v1);
    const before = openSotw(cds.address);
    before.send({ node: { id: 'proxy-1' } });
    const held = await before.nth(1);
    before.cancel();
    await expect.poll(() => cds.registry.size).toBe(0);

    const after = openSotw(cds.address);
    after.send({ node: { id: 'proxy-1' }, version_info: held.version_info, response_nonce: held.nonce });
    await expect.poll(() => cds.registry.list()[0]?.nodeId).toBe('proxy-1');
    expect(cds.registry.list()[0]?.lastVersionSent).toBeNull();
    await cds.apply(v2);
    const pushed = await after.nth(1);
    expect(pushed.version_info).toBe(cds.catalog.current.version);
    expect(clusterNames(pushed.resources)).toEqual(['a', 'b']);
  });

  it('answers a client reconnecting with an older version with the current state', async () => {
    const cds = await startCds();
    await cds.apply(v1);
    const old = cds.catalog.current.version;
    await cds.apply(v2);
    const stream = openSotw(cds.address);
    stream.send({ node: { id: 'proxy-1' }, version_info: old });
    const first = await stream.nth(1);
    expect(first.version_info).toBe(cds.catalog.current.version);
    expect(clusterNames(first.resources)).toEqual(['a', 'b']);
  });
});
