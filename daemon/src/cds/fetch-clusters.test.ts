import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { backendsHcl, cdsClient, type ClientDiscoveryResponse, clusterNames, startCds } from './testing/cds-fixture.js';

function fetchClusters(address: string, request: object): Promise<ClientDiscoveryResponse> {
  const client = cdsClient(address);
  return new Promise((resolve, reject) => {
    (client['FetchClusters'] as (r: object, cb: (e: grpc.ServiceError | null, v: ClientDiscoveryResponse) => void) => void).call(client, request, (error, value) => (error ? reject(error) : resolve(value)));
  });
}

describe('FetchClusters (gRPC unary)', () => {
  it('answers every cluster, or the named ones that exist, at the current version', async () => {
    const cds = await startCds();
    await cds.apply(backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://b"' }));
    const all = await fetchClusters(cds.address, { node: { id: 'poller' } });
    expect(all.version_info).toBe(cds.catalog.current.version);
    expect(clusterNames(all.resources)).toEqual(['a', 'b']);
    const named = await fetchClusters(cds.address, { resource_names: ['b', 'nope'] });
    expect(clusterNames(named.resources)).toEqual(['b']);
    // Unary has no "not modified": a current version still gets the data.
    const again = await fetchClusters(cds.address, { version_info: all.version_info });
    expect(clusterNames(again.resources)).toEqual(['a', 'b']);
    expect(cds.registry.size).toBe(0);
  });

  it('refuses another resource type with INVALID_ARGUMENT', async () => {
    const cds = await startCds();
    await expect(fetchClusters(cds.address, { type_url: 'type.googleapis.com/proxy.api.v2.Listener' })).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
  });
});
