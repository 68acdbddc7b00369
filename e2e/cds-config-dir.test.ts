// `--mode cds -d DIR` in a real daemon: a *.hcl file dropped into the directory after the
// start reaches the clusters, without a restart, like the gateway's own reload does.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlQuery, startDaemon, type DaemonHandle } from './harness.js';

const MAIN = `definitions {
  backend "api" {
    origin = "http://10.0.0.10:8080"
  }
}
server {
  endpoint "/" {
    response {
      body = "ok"
    }
  }
}
`;

let dir: string;
let daemon: DaemonHandle;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portico-e2e-cds-dir-'));
  writeFileSync(join(dir, '10-main.hcl'), MAIN);
  daemon = await startDaemon({ args: ['--mode', 'cds', '-d', dir] });
});

afterAll(async () => {
  await daemon?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function clusterNames(): Promise<string[]> {
  const list = (await controlQuery(daemon, 'clusters.list', daemon.token)).body as { result: { data: { clusters: { name: string }[] } } };
  return list.result.data.clusters.map((c) => c.name).sort();
}

describe('cluster discovery from a configuration directory', () => {
  it('serves the clusters of a *.hcl file added to the -d directory after the start, and forgets them when it goes', async () => {
    expect(await clusterNames()).toEqual(['api']);
    writeFileSync(join(dir, 'README.txt'), 'not configuration');
    writeFileSync(join(dir, '20-cache.hcl'), 'definitions {\n  backend "cache" {\n    origin = "http://10.0.0.20:6379"\n  }\n}\n');
    await expect.poll(clusterNames, { timeout: 10_000 }).toEqual(['api', 'cache']);
    rmSync(join(dir, '20-cache.hcl'));
    await expect.poll(clusterNames, { timeout: 10_000 }).toEqual(['api']);
    expect(daemon.logs()).not.toMatch(/configuration not loaded/);
  });
});
