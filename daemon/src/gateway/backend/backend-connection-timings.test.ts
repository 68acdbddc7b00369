import { afterAll, expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
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
