import { describe, expect, it } from 'vitest';
import { backendsHcl, clusterNames, openSotw, startCds } from './testing/cds-fixture.js';

const ab = backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.2"' });
const abLater = backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.9"', later: '    origin = "http://later.internal"' });

describe('StreamClusters named subscriptions', () => {
  it('sends only the named clusters, and a name that does not exist yet when it appears', async () => {
    const cds = await startCds();
    await cds.apply(ab);
    const stream = openSotw(cds.address);
    stream.send({ node: { id: 'grpc-client' }, resource_names: ['a', 'later'] });
    const first = await stream.nth(1);
    expect(clusterNames(first.resources)).toEqual(['a']);
    stream.send({ version_info: first.version_info, response_nonce: first.nonce, resource_names: ['a', 'later'] });
    await expect.poll(() => cds.registry.list()[0]?.lastAck).not.toBeNull();
    expect(cds.registry.list()[0]?.subscriptions).toEqual({ wildcard: false, names: ['a', 'later'] });

    await cds.apply(abLater); // b changed (not subscribed) and `later` appeared
    const second = await stream.nth(2);
    expect(clusterNames(second.resources)).toEqual(['a', 'later']);
  });

  it('does not push a change to a cluster the stream did not name', async () => {
    const cds = await startCds();
    await cds.apply(ab);
    const stream = openSotw(cds.address);
    stream.send({ node: { id: 'grpc-client' }, resource_names: ['a'] });
    const first = await stream.nth(1);
    stream.send({ version_info: first.version_info, response_nonce: first.nonce, resource_names: ['a'] });
    await expect.poll(() => cds.registry.list()[0]?.lastAck).not.toBeNull();
    await cds.apply(backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.3"' }));
    await cds.apply(backendsHcl({ a: '    origin = "http://10.0.0.4"', b: '    origin = "http://10.0.0.3"' }));
    const second = await stream.nth(2);
    expect(second.version_info).toBe(cds.catalog.current.version);
    expect(stream.responses).toHaveLength(2);
  });

  it('answers a newly added name at once, and an empty list after names unsubscribes everything', async () => {
    const cds = await startCds();
    await cds.apply(ab);
    const stream = openSotw(cds.address);
    stream.send({ node: { id: 'grpc-client' }, resource_names: ['a'] });
    const first = await stream.nth(1);
    stream.send({ version_info: first.version_info, response_nonce: first.nonce, resource_names: ['a', 'b'] });
    const second = await stream.nth(2);
    expect(second.version_info).toBe(first.version_info);
    expect(clusterNames(second.resources)).toEqual(['a', 'b']);
    stream.send({ version_info: second.version_info, response_nonce: second.nonce, resource_names: [] });
    await expect.poll(() => cds.registry.list()[0]?.subscriptions).toEqual({ wildcard: false, names: [] });
    await cds.apply(abLater);
    // Nothing subscribed: the new version is not pushed; a new name brings the current state.
    stream.send({ version_info: second.version_info, response_nonce: second.nonce, resource_names: ['later'] });
    const third = await stream.nth(3);
    expect(clusterNames(third.resources)).toEqual(['later']);
    expect(third.version_info).toBe(cds.catalog.current.version);
  });
});
