import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { loadGatewayConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/model.js';
import { ReusableBackends } from '../config/backend-reuse.js';
import { tempFiles } from '../config/testing/config-files.js';
import { createHealthMonitor } from '../health/health-monitor.js';
import { createBackendSet } from './backend-set.js';
import { SharedTransports } from './shared-transports.js';
import type { ProcessEnv } from './transport.js';
import { backendRequest, cleanup, readAll, recordingSink, settle, testLogger } from './testing/backend-fixture.js';
import { makeCertificates } from './testing/certificates.js';
import { startOrigin, type TestOrigin } from './testing/origin.js';

const FILE = '/virtual/portico.hcl';

/** Loads definitions as a reload does: with the previous load's reusable backends. */
class Loads {
  #reuse = ReusableBackends.EMPTY;

  async load(definitions: string, settings = ''): Promise<GatewayConfig> {
    const text = `server {\n  endpoint "/" {\n    response {\n      status = 200\n    }\n  }\n}\ndefinitions {\n${definitions}\n}\n${settings}`;
    const loaded = await loadGatewayConfig([FILE], {}, { texts: new Map([[FILE, text]]), reuse: this.#reuse });
    if (!loaded.config) throw new Error(loaded.diagnostics.map((d) => d.detail).join('; '));
    this.#reuse = loaded.reusable;
    return loaded.config;
  }
}

/** Backend sets as one gateway makes them: the same transports and process environment for each. */
function setsOf(transports: SharedTransports, env: ProcessEnv = {}) {
  const health = createHealthMonitor({ logger: testLogger(), logSink: recordingSink(), env });
  cleanup(() => health.stop());
  return (config: GatewayConfig) => createBackendSet(config, { health, logSink: recordingSink(), env, transports });
}

async function origin(): Promise<TestOrigin> {
  const started = await startOrigin((_req, res) => res.end('ok'));
  cleanup(started.close);
  return started;
}

/** One request through `set`, its connection back in the pool after. */
async function get(set: ReturnType<ReturnType<typeof setsOf>>, name: string, url: string): Promise<string> {
  const body = await readAll((await set.get(name).send(backendRequest(`${url}/`))).body);
  await settle();
  return body;
}

test('an unchanged backend keeps its transport and its connection over a reload; a changed one gets a new one', async () => {
  const [a, b] = [await origin(), await origin()];
  const loads = new Loads();
  const transports = new SharedTransports();
  const setFor = setsOf(transports);
  const definitions = (timeout: string): string => `backend "a" {\n origin = "${a.url}"\n}\nbackend "b" {\n origin = "${b.url}"\n connect_timeout = "${timeout}"\n}`;
  const first = setFor(await loads.load(definitions('5s')));
  expect(await get(first, 'a', a.url)).toBe('ok');
  expect(await get(first, 'b', b.url)).toBe('ok');
  expect(transports.size).toBe(2);

  const second = setFor(await loads.load(definitions('7s')));
  // The old set closes after the swap, as the gateway does.
  await first.close();
  expect(await get(second, 'a', a.url)).toBe('ok');
  expect(await get(second, 'b', b.url)).toBe('ok');
  // a: one connection, kept; b: the old set's connection closed, a new one for the new transport.
  expect(a.connections()).toBe(1);
  expect(b.connections()).toBe(2);
  await expect.poll(() => b.open()).toBe(1);
  expect(a.open()).toBe(1);

  await second.close();
  expect(transports.size).toBe(0);
  await expect.poll(() => a.open() + b.open()).toBe(0);
});

test('a backend whose block moved (an edit above it changed the length) keeps its transport and connection', async () => {
  const [a, b] = [await origin(), await origin()];
  const loads = new Loads();
  const transports = new SharedTransports();
  const setFor = setsOf(transports);
  const definitions = (timeout: string): string => `backend "a" {\n origin = "${a.url}"\n connect_timeout = "${timeout}"\n}\nbackend "b" {\n origin = "${b.url}"\n}`;
  const first = setFor(await loads.load(definitions('5s')));
  expect(await get(first, 'b', b.url)).toBe('ok');
  // "a" grows by a character: "b" is taken at its new place, as a copy with its range moved.
  const config = await loads.load(definitions('10s'));
  const second = setFor(config);
  await first.close();
  expect(await get(second, 'b', b.url)).toBe('ok');
  expect(b.connections()).toBe(1);
  expect(b.open()).toBe(1);
  await second.close();
  expect(transports.size).toBe(0);
});

test('a set that is dropped before it serves (an aborted reload) leaves the serving set its transports', async () => {
  const a = await origin();
  const loads = new Loads();
  const transports = new SharedTransports();
  const setFor = setsOf(transports);
  const definitions = `backend "a" {\n origin = "${a.url}"\n}`;
  const serving = setFor(await loads.load(definitions));
  expect(await get(serving, 'a', a.url)).toBe('ok');
  const aborted = setFor(await loads.load(definitions));
  await aborted.close();
  // Closing twice releases once.
  await aborted.close();
  expect(transports.size).toBe(1);
  expect(await get(serving, 'a', a.url)).toBe('ok');
  expect(a.connections()).toBe(1);
  await serving.close();
  await expect.poll(() => a.open()).toBe(0);
});

test('nothing is shared where a CA file shapes the transport: a CA file replaced under the same path is read again', async () => {
  const [trusted, other] = [makeCertificates(['localhost', '127.0.0.1']), makeCertificates(['localhost'])];
  cleanup(() => {
    trusted.dispose();
    other.dispose();
  });
  const a = await startOrigin((_req, res) => res.end('trusted'), { tls: trusted });
  cleanup(a.close);
  const ca = join(tempFiles({}), 'ca.pem');
  copyFileSync(other.caFile, ca);
  const loads = new Loads();
  const transports = new SharedTransports();
  const setFor = setsOf(transports);
  const definitions = `backend "a" {\n origin = "${a.url}"\n}`;
  const settings = `settings {\n ca_file = "${ca}"\n}`;
  const first = setFor(await loads.load(definitions, settings));
  await expect(get(first, 'a', a.url)).rejects.toThrow();
  expect(transports.size).toBe(0);
  // The operator puts the right CA in place and the reload (same text: the backend is reused) trusts it.
  copyFileSync(trusted.caFile, ca);
  const second = setFor(await loads.load(definitions, settings));
  await first.close();
  expect(await get(second, 'a', a.url)).toBe('trusted');
  await second.close();
});

test('sets made with another environment or proxy setting build their own transports', async () => {
  const a = await origin();
  const loads = new Loads();
  const transports = new SharedTransports();
  const definitions = `backend "a" {\n origin = "${a.url}"\n}`;
  const first = setsOf(transports, {})(await loads.load(definitions));
  const otherEnv = setsOf(transports, { NO_PROXY: '*' })(await loads.load(definitions));
  const otherSetting = setsOf(transports, {})(await loads.load(definitions, 'settings {\n no_proxy_from_env = true\n}'));
  expect(await get(first, 'a', a.url)).toBe('ok');
  expect(await get(otherEnv, 'a', a.url)).toBe('ok');
  expect(await get(otherSetting, 'a', a.url)).toBe('ok');
  expect(a.connections()).toBe(3);
  await Promise.all([first.close(), otherEnv.close(), otherSetting.close()]);
  expect(transports.size).toBe(0);
});
