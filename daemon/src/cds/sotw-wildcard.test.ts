import { describe, expect, it } from 'vitest';
import { CLUSTER_TYPE_URL } from './proto-root.js';
import { backendsHcl, clusterNames, openSotw, startCds } from './testing/cds-fixture.js';

const two = backendsHcl({ a: '    origin = "http://10.0.0.1:8080"', b: '    origin = "http://b.internal"' });
const one = backendsHcl({ a: '    origin = "http://10.0.0.1:8080"' });

describe('StreamClusters wildcard', () => {
  it('answers an initial request without names with every cluster, and ACKs get no answer', async () => {
    const cds = await startCds();
    await cds.apply(two);
    const stream = openSotw(cds.address);
    stream.send({ node: { id: 'proxy-1', cluster: 'edge' }, type_url: CLUSTER_TYPE_URL });
    const first = await stream.nth(1);
    expect(first.version_info).toBe(cds.catalog.current.version);
    expect(first.type_url).toBe(CLUSTER_TYPE_URL);
    expect(first.resources.every((r) => r.type_url === CLUSTER_TYPE_URL)).toBe(true);
    expect(clusterNames(first.resources)).toEqual(['a', 'b']);
    expect(first.nonce).not.toBe('');

    stream.send({ version_info: first.version_info, response_nonce: first.nonce, type_url: CLUSTER_TYPE_URL });
    await expect.poll(() => cds.registry.list()[0]?.lastAck?.version).toBe(first.version_info);
    // The next response is the next version, not an answer to the ACK.
    await cds.apply(one);
    const second = await stream.nth(2);
    expect(second.version_info).toBe(cds.catalog.current.version);
    expect(second.version_info).not.toBe(first.version_info);
  });

  it('sends the complete set every time, so a cluster missing from a response is deleted', async () => {
    const cds = await startCds();
    await cds.apply(two);
    const stream = openSotw(cds.address);
    stream.send({ node: { id: 'proxy-1' } });
    const first = await stream.nth(1);
    stream.send({ version_info: first.version_info, response_nonce: first.nonce });
    await expect.poll(() => cds.registry.list()[0]?.lastAck).not.toBeNull();
    await cds.apply(one);
    expect(clusterNames((await stream.nth(2)).resources)).toEqual(['a']);
    await cds.apply(backendsHcl({ only: '    origin = "http://only"' }));
    expect(clusterNames((await stream.nth(3)).resources)).toEqual(['only']);
  });

  it('treats "*" as an explicit wildcard and records the node from the first request', async () => {
    const cds = await startCds();
    await cds.apply(two);
    const stream = openSotw(cds.address);
    stream.send({ node: { id: 'proxy-7', cluster: 'edge' }, resource_names: ['*'] });
    expect(clusterNames((await stream.nth(1)).resources)).toEqual(['a', 'b']);
    await expect.poll(() => cds.registry.list()[0]).toMatchObject({ nodeId: 'proxy-7', nodeCluster: 'edge', kind: 'sotw', subscriptions: { wildcard: true, names: [] } });
  });

  it('refuses a type_url other than Cluster with INVALID_ARGUMENT', async () => {
    const cds = await startCds();
    const stream = openSotw(cds.address);
    stream.send({ node: { id: 'x' }, type_url: 'type.googleapis.com/proxy.api.v2.Listener' });
    await expect.poll(() => stream.error?.code).toBe(3);
    expect(stream.error?.details).toContain('proxy.api.v2.Cluster');
  });
});
