import { describe, expect, it } from 'vitest';
import type { ClustersChange } from './control-types.js';
import { startClustersApi } from './testing/clusters-api.js';
import { backendsHcl, openDelta, openSotw } from './testing/cds-fixture.js';

describe('clusters control API', () => {
  it('lists the clusters with endpoint and health, and the connected clients with ACK and NACK', async () => {
    const { api, cds } = await startClustersApi();
    await cds.apply(backendsHcl({ api: '    origin = "https://10.0.0.1:8443"\n    http2 = true', web: '    origin = "http://web.internal"' }), {
      api: { state: 'unhealthy', healthy: false, error: '', lastCheckAt: null, failures: 2, latencyMs: null, since: '', checked: true },
    });
    const list = await api.clusters.list.query();
    expect(list.version).toBe(cds.catalog.current.version);
    expect(list.address).toBe(cds.address);
    expect(list.clusters).toEqual([
      expect.objectContaining({ name: 'api', type: 'STATIC', tls: true, http2: true, healthStatus: 'UNHEALTHY', endpoints: [{ address: '10.0.0.1', port: 8443, healthStatus: 'UNHEALTHY' }] }),
      expect.objectContaining({ name: 'web', type: 'STRICT_DNS', tls: false, healthStatus: 'UNKNOWN', endpoints: [{ address: 'web.internal', port: 80, healthStatus: 'UNKNOWN' }] }),
    ]);

    const sotw = openSotw(cds.address);
    sotw.send({ node: { id: 'edge-1', cluster: 'edge' } });
    const first = await sotw.nth(1);
    sotw.send({ response_nonce: first.nonce, error_detail: { code: 13, message: 'unknown transport socket' } });
    const delta = openDelta(cds.address);
    delta.send({ node: { id: 'mesh-2' }, resource_names_subscribe: ['web'] });
    const d1 = await delta.nth(1);
    delta.send({ response_nonce: d1.nonce });

    await expect.poll(async () => (await api.clusters.clients.query()).map((c) => [c.nodeId, c.kind, c.lastAck?.version ?? null, c.lastNack?.message ?? null])).toEqual([
      ['edge-1', 'sotw', null, 'unknown transport socket'],
      ['mesh-2', 'delta', list.version, null],
    ]);
    const [edge, mesh] = await api.clusters.clients.query();
    expect(edge).toMatchObject({ nodeCluster: 'edge', subscriptions: { wildcard: true, names: [] }, lastVersionSent: list.version, lastNonce: first.nonce, lastNack: { version: list.version, code: 13 } });
    expect(mesh).toMatchObject({ subscriptions: { wildcard: false, names: ['web'] }, lastVersionSent: list.version });
  });

  it('emits a change on a new snapshot and on client changes', async () => {
    const { api, cds } = await startClustersApi();
    const changes: ClustersChange[] = [];
    let started = false;
    const subscription = api.clusters.changes.subscribe(undefined, { onStarted: () => (started = true), onData: ({ data }) => changes.push(data) });
    try {
      await expect.poll(() => started && changes.length > 0).toBe(true); // the first tick: listening from here
      await cds.apply(backendsHcl({ a: '    origin = "http://10.0.0.1"' }));
      await expect.poll(() => changes.some((c) => c.kind === 'snapshot' && c.version === cds.catalog.current.version)).toBe(true);
      const stream = openSotw(cds.address);
      stream.send({ node: { id: 'x' } });
      await expect.poll(() => changes.some((c) => c.kind === 'clients' && c.clients === 1)).toBe(true);
    } finally {
      subscription.unsubscribe();
    }
  });
});
