import { afterAll, expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { makeCertificates } from './testing/certificates.js';
import { startOrigin } from './testing/origin.js';

const tls = makeCertificates(['localhost', '127.0.0.1']);
afterAll(() => tls.dispose());

test("the backend's ca_file is trusted in addition to the system roots", async () => {
  const origin = await startOrigin((_req, res) => res.end('trusted'), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n ca_file = "${tls.caFile}"\n}`);
  const { set } = backendsFor(config);
  expect(await readAll((await set.get('b').send(backendRequest(`${origin.url}/`))).body)).toBe('trusted');
});

test('settings.ca_file applies to every backend without its own', async () => {
  const origin = await startOrigin((_req, res) => res.end('trusted too'), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`, {}, `settings {\n ca_file = "${tls.caFile}"\n}`);
  const { set } = backendsFor(config);
  expect(await readAll((await set.get('b').send(backendRequest(`${origin.url}/`))).body)).toBe('trusted too');
});

test("a ca_file of another CA does not make the origin's certificate valid", async () => {
  const other = makeCertificates(['localhost']);
  cleanup(() => other.dispose());
  const origin = await startOrigin((_req, res) => res.end('no'), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n ca_file = "${other.caFile}"\n}`);
  const { set } = backendsFor(config);
  await expect(set.get('b').send(backendRequest(`${origin.url}/`))).rejects.toMatchObject({ kind: 'backend' });
});
