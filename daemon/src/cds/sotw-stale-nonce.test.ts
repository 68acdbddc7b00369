import { describe, expect, it } from 'vitest';
import { backendsHcl, clusterNames, openSotw, startCds } from './testing/cds-fixture.js';

const hcl = backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.2"' });

describe('StreamClusters stale nonce', () => {
  it('ignores a request whose nonce is not the last one sent on the stream', async () => {
    const cds = await startCds();
    await cds.apply(hcl);
    const stream = openSotw(cds.address);
    stream.send({ node: { id: 'proxy-1' }, resource_names: ['a'] });
    const first = await stream.nth(1);
    // A new name with the right nonce is answered...
    stream.send({ version_info: first.version_info, response_nonce: first.nonce, resource_names: ['a', 'b'] });
    const second = await stream.nth(2);
    expect(clusterNames(second.resources)).toEqual(['a', 'b']);
    // ...but the same change carried by the now stale first nonce is ignored: no ACK, no answer.
    stream.send({ version_info: first.version_info, response_nonce: first.nonce, resource_names: ['a'] });
    stream.send({ version_info: second.version_info, response_nonce: second.nonce, resource_names: ['a', 'b'] });
    await expect.poll(() => cds.registry.list()[0]?.lastAck?.version).toBe(second.version_info);
    expect(cds.registry.list()[0]?.subscriptions.names).toEqual(['a', 'b']);
    expect(stream.responses).toHaveLength(2);
  });
});
