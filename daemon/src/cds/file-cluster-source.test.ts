import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EDITOR_SAVE_NAMES, EDITOR_SAVES } from '../core/testing/editor-saves.js';
import { loadCdsTypes } from './proto-root.js';
import { ClusterCatalog } from './catalog.js';
import { FileClusterSource } from './cluster-source.js';
import { backendsHcl, configFile } from './testing/cds-fixture.js';

const names = (catalog: ClusterCatalog): string[] => [...catalog.current.byName.keys()].sort();

/** A started `--mode cds` source over `paths`, counting its loads. */
async function startSource(paths: string[]): Promise<{ catalog: ClusterCatalog; loads: string[][]; failures: string[]; source: FileClusterSource }> {
  const catalog = new ClusterCatalog(loadCdsTypes());
  const loads: string[][] = [];
  const failures: string[] = [];
  const source = new FileClusterSource(paths, {}, catalog, { loaded: (config) => loads.push(Object.keys(config.backends).sort()), failed: (m) => failures.push(m) });
  await source.start();
  return { catalog, loads, failures, source };
}

describe('--mode cds watches its configuration', () => {
  it('picks up a *.hcl file added to a -d directory later, and drops its clusters when it is removed', async () => {
    const dir = join(dirname(configFile('').path), 'conf.d');
    mkdirSync(dir);
    writeFileSync(join(dir, '10-main.hcl'), backendsHcl({ a: '    origin = "http://10.0.0.1"' }));
    const { catalog, failures, source } = await startSource([dir]);
    try {
      expect(names(catalog)).toEqual(['a']);
      expect(source.describe()).toBe(`config files ${dir}/*.hcl (no health checks in this mode)`);

      writeFileSync(join(dir, 'notes.txt'), 'not configuration');
      writeFileSync(join(dir, '20-more.hcl'), 'definitions {\n  backend "more" {\n    origin = "http://10.0.0.9"\n  }\n}\n');
      await expect.poll(() => names(catalog)).toEqual(['a', 'more']);
      rmSync(join(dir, '20-more.hcl'));
      await expect.poll(() => names(catalog)).toEqual(['a']);
      expect(failures).toEqual([]);
    } finally {
      await source.stop();
    }
  });

  it.each(EDITOR_SAVE_NAMES)('loads exactly once for a save made by "%s"', async (how) => {
    const file = configFile(backendsHcl({ a: '    origin = "http://10.0.0.1"' }));
    const { loads, failures, source } = await startSource([file.path]);
    try {
      EDITOR_SAVES[how]!(file.path, backendsHcl({ a: '    origin = "http://10.0.0.1"', b: '    origin = "http://10.0.0.2"' }));
      await expect.poll(() => loads.at(-1)).toEqual(['a', 'b']);
      // The next save is the next load: nothing came in between.
      file.write(backendsHcl({ c: '    origin = "http://10.0.0.3"' }));
      await expect.poll(() => loads.at(-1)).toEqual(['c']);
      expect(loads).toEqual([['a'], ['a', 'b'], ['c']]);
      expect(failures).toEqual([]);
    } finally {
      await source.stop();
    }
  });

  it('reports a load that throws and loads again on the next save (the chain of loads does not stay broken)', async () => {
    const file = configFile(backendsHcl({ a: '    origin = "http://10.0.0.1"' }));
    const catalog = new ClusterCatalog(loadCdsTypes());
    const failures: string[] = [];
    let throwOnce = true;
    const loads: string[][] = [];
    const source = new FileClusterSource([file.path], {}, catalog, {
      loaded: (config) => {
        if (!throwOnce) return void loads.push(Object.keys(config.backends).sort());
        throwOnce = false;
        throw new Error('listener broke');
      },
      failed: (m) => failures.push(m),
    });
    await source.start();
    try {
      expect(failures).toEqual(['the configuration could not be loaded: listener broke']);
      file.write(backendsHcl({ b: '    origin = "http://10.0.0.2"' }));
      await expect.poll(() => loads).toEqual([['b']]);
      expect(names(catalog)).toEqual(['b']);
    } finally {
      await source.stop();
    }
  });
});

