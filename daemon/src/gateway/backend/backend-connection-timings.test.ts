import { afterAll, expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll, settle } from './testing/backend-fixture.js';
import { makeCertificates } from './testing/certificates.js';
import { startOrigin } from './testing/origin.js';

const tls = makeCertificates(['localhost']);
afterAll(() => tls.dispose());

test('a new connection to a host name reports dns, tcp and tls timings; the protocol is logged', async () => {
  const origin = await startOrigin((_req, res) => res.end('ok'), { tls });
  cleanup(origin.close);
  const url = `https://localhost:${origin.port}`;
  const config = await loadDefinitions(`backend "b" {\n origin = "${url}"\n ca_file = "${tls.caFile}"\n}`);
  const { set, log } = backendsFor(config);
  expect(await readAll((await set.get('b').send(backendRequest(`${url}/`))).body)).toBe('ok');
  await expect.poll(() => log.length).toBe(1);
  expect(log[0]).toMatchObject({
    timings: { dns: expect.any(Number), tcp: expect.any(Number), tls: expect.any(Number), ttfb: expect.any(Number), total: expect.any(Number) },
    response: { protocol: 'http/1.1' },
    request: { proto: 'https', host: 'localhost' },
  });
});

test('a request on a reused connection reports no connect timings and still its protocol', async () => {
  const origin = await startOrigin((_req, res) => res.end('ok'));
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set, log } = backendsFor(config);
  for (let i = 0; i < 3; i++) {
    expect(await readAll((await set.get('b').send(backendRequest(`${origin.url}/${i}`))).body)).toBe('ok');
    await settle();
  }
  await expect.poll(() => log.length).toBe(3);
  expect(origin.connections()).toBe(1);
  expect(log.map((r) => r.timings)).toEqual([
    expect.objectContaining({ tcp: expect.any(Number), tls: null }),
    expect.objectContaining({ dns: null, tcp: null, tls: null }),
    expect.objectContaining({ dns: null, tcp: null, tls: null }),
  ]);
  expect(log.map((r) => (r.response as { protocol: string }).protocol)).toEqual(['http/1.1', 'http/1.1', 'http/1.1']);
});
