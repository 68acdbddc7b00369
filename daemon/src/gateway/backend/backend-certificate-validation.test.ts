import { afterAll, expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { makeCertificates } from './testing/certificates.js';
import { startOrigin } from './testing/origin.js';

const tls = makeCertificates(['localhost', '127.0.0.1']);
afterAll(() => tls.dispose());

test('a certificate from an unknown CA is refused by default (backend error naming the TLS cause)', async () => {
  const origin = await startOrigin((_req, res) => res.end('secret data'), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set } = backendsFor(config);
  const failure = await set.get('b').send(backendRequest(`${origin.url}/`)).catch((e: unknown) => e);
  expect(failure).toMatchObject({ kind: 'backend', detail: expect.stringMatching(/certificate/i) });
  expect(origin.requests).toHaveLength(0);
});

test('disable_certificate_validation accepts it', async () => {
  const origin = await startOrigin((_req, res) => res.end('data'), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n disable_certificate_validation = true\n}`);
  const { set, log } = backendsFor(config);
  expect(await readAll((await set.get('b').send(backendRequest(`${origin.url}/`))).body)).toBe('data');
  await expect.poll(() => log.length).toBe(1);
  expect(log[0]!.timings).toMatchObject({ tls: expect.any(Number) });
});
