import { describe, expect, it } from 'vitest';
import { FileClusterSource, GatewayClusterSource } from './cluster-source.js';
import { backendsHcl, clusterNames, configFile, loadConfig, openDelta, openSotw, startCds, TestGatewayState } from './testing/cds-fixture.js';

const v1 = backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.2"\n    beta_health {\n      path = "/up"\n    }' });
const v2 = backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.2"\n    beta_health {\n      path = "/up"\n    }', c: '    origin = "http://c"' });

describe('config changes reach open streams', () => {
  it('a reload pushes exactly one response to each open stream; an unchanged reload pushes nothing', async () => {
    const cds = await startCds();
    const gateway = new TestGatewayState();
    gateway.applyConfig(await loadConfig(v1));
    const source = new GatewayClusterSource(gateway, cds.catalog);
    await source.start();
    const sotw = openSotw(cds.address);
    const delta = openDelta(cds.address);
    sotw.send({ node: { id: 's' } });
    delta.send({ node: { id: 'd' } });
    const s1 = await sotw.nth(1);
    const d1 = await delta.nth(1);
    sotw.send({ version_info: s1.version_info, response_nonce: s1.nonce });
    delta.send({ response_nonce: d1.nonce });
    await expect.poll(() => cds.registry.list().filter((c) => c.lastAck).length).toBe(2);

    gateway.applyConfig(await loadConfig(v1)); // same content, freshly loaded: no new version
    gateway.applyConfig(await loadConfig(v2));
    const s2 = await sotw.nth(2);
    const d2 = await delta.nth(2);
    expect(clusterNames(s2.resources)).toEqual(['a', 'b', 'c']);
    expect(d2.resources.map((r) => r.name)).toEqual(['c']);
    gateway.applyConfig(await loadConfig(v2));
    // A health change is the next push: nothing came in between.
    gateway.health.report('b', 'unhealthy');
    const s3 = await sotw.nth(3);
    const d3 = await delta.nth(3);
    expect(sotw.responses).toHaveLength(3);
    expect(delta.responses).toHaveLength(3);
    expect(s3.version_info).not.toBe(s2.version_info);
    expect(d3.resources.map((r) => r.name)).toEqual(['b']);
    expect(cds.catalog.current.byName.get('b')?.summary.healthStatus).toBe('UNHEALTHY');
    await source.stop();
  });

  it('in --mode cds, editing the config file pushes the new clusters (health UNKNOWN); a broken file keeps them', async () => {
    const cds = await startCds();
    const file = configFile(v1);
    const failures: string[] = [];
    const source = new FileClusterSource([file.path], {}, cds.catalog, { loaded: () => {}, failed: (m) => failures.push(m) });
    await source.start();
    try {
      const stream = openSotw(cds.address);
      stream.send({ node: { id: 's' } });
      const first = await stream.nth(1);
      expect(clusterNames(first.resources)).toEqual(['a', 'b']);
      expect(cds.catalog.current.byName.get('a')?.summary.healthStatus).toBe('UNKNOWN');
      file.write('definitions {\n  backend "a" {\n');
      await expect.poll(() => failures.length).toBe(1);
      expect(failures[0]).toContain('portico.hcl');
      file.write(v2);
      const second = await stream.nth(2);
      expect(clusterNames(second.resources)).toEqual(['a', 'b', 'c']);
      expect(stream.responses).toHaveLength(2);
    } finally {
      await source.stop();
    }
  });
});
