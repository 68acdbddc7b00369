import { describe, expect, it } from 'vitest';
import { CLUSTER_TYPE_URL, loadCdsTypes } from './proto-root.js';

describe('the CDS protos', () => {
  it('define the service with its three methods and the HTTP annotation on FetchClusters', () => {
    const { service, root } = loadCdsTypes();
    expect(Object.keys(service.methods).sort()).toEqual(['DeltaClusters', 'FetchClusters', 'StreamClusters']);
    expect(service.methods['StreamClusters']).toMatchObject({ requestStream: true, responseStream: true, requestType: 'DiscoveryRequest' });
    expect(service.methods['DeltaClusters']).toMatchObject({ requestStream: true, responseStream: true, requestType: 'DeltaDiscoveryRequest' });
    expect(service.methods['FetchClusters']?.requestStream).toBeFalsy();
    expect(service.methods['FetchClusters']?.parsedOptions).toEqual([{ '(google.api.http)': { post: '/v2/discovery:clusters', body: '*' } }]);
    expect(root.lookupType('proxy.api.v2.CdsDummy').fieldsArray).toEqual([]);
    expect(CLUSTER_TYPE_URL).toBe('type.googleapis.com/proxy.api.v2.Cluster');
  });
});
