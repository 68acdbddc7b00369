import { afterAll, expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { makeCertificates } from './testing/certificates.js';
import { startForwardProxy } from './testing/forward-proxy.js';
import { startOrigin } from './testing/origin.js';

const tls = makeCertificates(['api.portico.test']);
afterAll(() => tls.dispose());

test('proxy: requests to an http origin go through the forward proxy', async () => {
  const proxy = await startForwardProxy();
  cleanup(proxy.close);
  const origin = await startOrigin((req, res) => res.end(`via proxy ${req.url}`));
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n proxy = "${proxy.url}"\n}`);
  const { set } = backendsFor(config);
  expect(await readAll((await set.get('b').send(backendRequest(`${origin.url}/p?q=1`))).body)).toBe('via proxy /p?q=1');
  expect([...proxy.connects, ...proxy.requests]).toEqual([`127.0.0.1:${origin.port}`]);
});

test("proxy: an https origin is tunnelled (CONNECT) with the backend's TLS settings (ca_file, hostname)", async () => {
  const proxy = await startForwardProxy();
  cleanup(proxy.close);
  const origin = await startOrigin((req, res) => res.end(`tls via proxy, host ${req.headers.host}`), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n proxy = "${proxy.url}"\n ca_file = "${tls.caFile}"\n hostname = "api.portico.test"\n}`);
  const { set } = backendsFor(config);
  const response = await set.get('b').send(backendRequest(`${origin.url}/`, { headers: { host: 'api.portico.test' } }));
  expect(await readAll(response.body)).toBe('tls via proxy, host api.portico.test');
  expect(proxy.connects).toEqual([`127.0.0.1:${origin.port}`]);
  expect(origin.requests[0]).toMatchObject({ servername: 'api.portico.test' });
});

test('proxy: an unreachable proxy is a backend error', async () => {
  const origin = await startOrigin((_req, res) => res.end('never'));
  cleanup(origin.close);
  const proxy = await startForwardProxy();
  await proxy.close();
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n proxy = "${proxy.url}"\n}`);
  const { set } = backendsFor(config);
  await expect(set.get('b').send(backendRequest(`${origin.url}/`))).rejects.toMatchObject({ kind: 'backend', detail: expect.stringContaining('ECONNREFUSED') });
  expect(origin.requests).toHaveLength(0);
});
