import type { CdsClientView, ClusterView } from '@portico/daemon/control';
import { describe, expect, it } from 'vitest';
import { filterClusters, subscribersOf } from './cluster-filter';

const cluster = (name: string, origin: string, healthStatus: ClusterView['healthStatus']) => ({ name, origin, healthStatus }) as ClusterView;
const client = (nodeId: string, wildcard: boolean, names: string[]) => ({ nodeId, subscriptions: { wildcard, names } }) as CdsClientView;

describe('clusters filter', () => {
  it('matches words of the name or origin, and the health', () => {
    const all = [cluster('api', 'https://10.0.0.1:8443', 'HEALTHY'), cluster('web', 'http://web.internal', 'UNHEALTHY')];
    expect(filterClusters(all, 'INTERNAL', '').map((c) => c.name)).toEqual(['web']);
    expect(filterClusters(all, '', 'HEALTHY').map((c) => c.name)).toEqual(['api']);
    expect(filterClusters(all, 'api', 'UNHEALTHY')).toEqual([]);
  });

  it('finds the streams that receive a cluster: wildcard or named', () => {
    const clients = [client('edge-1', true, []), client('edge-2', false, ['web']), client('edge-3', false, ['api'])];
    expect(subscribersOf(clients, 'api').map((c) => c.nodeId)).toEqual(['edge-1', 'edge-3']);
  });
});
