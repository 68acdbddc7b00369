import { describe, expect, it } from 'vitest';
import { backendsHcl, clusterNames, openSotw, startCds } from './testing/cds-fixture.js';

const v1 = backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.3"' });
const v2 = backendsHcl({ a: '    origin = "http://10.0.0.2"', b: '    origin = "http://10.0.0.3"' });

describe('StreamClusters NACK', () => {
  it('records the error detail and does not send the rejected version again on that stream', async () => {
    const cds = await startCds();
    await cds.apply(v1);
    const stream = openSotw(cds.address);
    stream.send({ node: { id: 'proxy-1' }, resource_names: ['a'] });
    const first = await stream.nth(1);
    stream.send({ version_info: '', response_nonce: first.nonce, resource_names: ['a'], error_detail: { code: 13, message: 'cluster a: bad connect_timeout' } });
    await expect.poll(() => cds.registry.list()[0]?.lastNack).toMatchObject({ version: first.version_info, code: 13, message: 'cluster a: bad connect_timeout' });
    expect(cds.registry.list()[0]?.lastAck).toBeNull();

    // A newly named cluster would normally be answered at once; at the rejected version it is not.
    stream.send({ version_info: '', response_nonce: first.nonce, resource_names: ['a', 'b'] });
    await expect.poll(() => cds.registry.list()[0]?.subscriptions.names).toEqual(['a', 'b']);
    await cds.apply(v2);
    const second = await stream.nth(2);
    expect(second.version_info).toBe(cds.catalog.current.version);
    expect(second.version_info).not.toBe(first.version_info);
    expect(stream.responses).toHaveLength(2);
    expect(clusterNames(second.resources)).toEqual(['a', 'b']);
  });
});
