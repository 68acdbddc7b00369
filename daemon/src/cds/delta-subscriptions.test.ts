import { describe, expect, it } from 'vitest';
import { backendsHcl, clusterNames, openDelta, startCds } from './testing/cds-fixture.js';

const ab = backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.2"' });
const names = (r: { resources: { name: string }[] }): string[] => r.resources.map((x) => x.name);

describe('DeltaClusters subscriptions', () => {
  it('sends a legacy wildcard stream every cluster with content-hash versions, then only what changed', async () => {
    const cds = await startCds();
    await cds.apply(ab);
    const stream = openDelta(cds.address);
    stream.send({ node: { id: 'envoy-1' } });
    const first = await stream.nth(1);
    expect(names(first)).toEqual(['a', 'b']);
    expect(clusterNames(first.resources.map((r) => r.resource))).toEqual(['a', 'b']);
    expect(first.resources.map((r) => r.version)).toEqual(['a', 'b'].map((n) => cds.catalog.current.byName.get(n)!.version));
    expect(first.system_version_info).toBe(cds.catalog.current.version);
    stream.send({ response_nonce: first.nonce });
    await expect.poll(() => cds.registry.list()[0]?.lastAck?.version).toBe(first.system_version_info);

    await cds.apply(backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.7"', c: '    origin = "http://c"' }));
    const second = await stream.nth(2);
    expect(names(second)).toEqual(['b', 'c']);
    expect(second.removed_resources).toEqual([]);
    await cds.apply(backendsHcl({ b: '    origin = "http://10.0.0.7"', c: '    origin = "http://c"' }));
    const third = await stream.nth(3);
    expect(third.resources).toEqual([]);
    expect(third.removed_resources).toEqual(['a']);
  });

  it('subscribes and unsubscribes names; a missing name goes to removed_resources and is pushed when it appears', async () => {
    const cds = await startCds();
    await cds.apply(ab);
    const stream = openDelta(cds.address);
    stream.send({ node: { id: 'grpc-1' }, resource_names_subscribe: ['a', 'ghost'] });
    const first = await stream.nth(1);
    expect(names(first)).toEqual(['a']);
    expect(first.removed_resources).toEqual(['ghost']);
    stream.send({ response_nonce: first.nonce, resource_names_subscribe: ['b'], resource_names_unsubscribe: ['a'] });
    const second = await stream.nth(2);
    expect(names(second)).toEqual(['b']);
    expect(cds.registry.list()[0]?.subscriptions).toEqual({ wildcard: false, names: ['b', 'ghost'] });

    // a changes (unsubscribed: nothing), ghost appears (pushed).
    await cds.apply(backendsHcl({ a: '    origin = "http://10.0.0.5"', b: '    origin = "http://10.0.0.2"', ghost: '    origin = "http://ghost"' }));
    const third = await stream.nth(3);
    expect(names(third)).toEqual(['ghost']);
    expect(stream.responses).toHaveLength(3);
  });

  it('resends a name subscribed again even when the client already holds it', async () => {
    const cds = await startCds();
    await cds.apply(ab);
    const stream = openDelta(cds.address);
    stream.send({ node: { id: 'grpc-1' }, resource_names_subscribe: ['a'] });
    const first = await stream.nth(1);
    stream.send({ response_nonce: first.nonce, resource_names_subscribe: ['a'] });
    const second = await stream.nth(2);
    expect(names(second)).toEqual(['a']);
    expect(second.resources[0]?.version).toBe(first.resources[0]?.version);
  });

  it('honours a subscription change carried by a stale nonce, without counting it as an ACK', async () => {
    const cds = await startCds();
    await cds.apply(ab);
    const stream = openDelta(cds.address);
    stream.send({ node: { id: 'grpc-1' }, resource_names_subscribe: ['a'] });
    const first = await stream.nth(1);
    stream.send({ response_nonce: first.nonce, resource_names_subscribe: ['b'] });
    const second = await stream.nth(2);
    const ackedAt = cds.registry.list()[0]?.lastAck;
    stream.send({ response_nonce: 'not-a-nonce-we-sent', resource_names_unsubscribe: ['a'], resource_names_subscribe: ['*'] });
    const third = await stream.nth(3);
    expect(names(third)).toEqual(['a']); // still wildcard: the dropped name comes back
    expect(cds.registry.list()[0]?.lastAck).toEqual(ackedAt);
    expect(second.nonce).not.toBe(third.nonce);
  });

  it('records a NACK and does not resend the rejected resources', async () => {
    const cds = await startCds();
    await cds.apply(ab);
    const stream = openDelta(cds.address);
    stream.send({ node: { id: 'envoy-1' }, resource_names_subscribe: ['*'] });
    const first = await stream.nth(1);
    stream.send({ response_nonce: first.nonce, error_detail: { code: 13, message: 'rejected b' } });
    await expect.poll(() => cds.registry.list()[0]?.lastNack).toMatchObject({ version: first.system_version_info, code: 13, message: 'rejected b' });
    await cds.apply(backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.2"', c: '    origin = "http://c"' }));
    const second = await stream.nth(2);
    expect(names(second)).toEqual(['c']);
  });
});
