import { afterAll, expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { makeCertificates } from './testing/certificates.js';
import { startOrigin } from './testing/origin.js';

// The certificate names only api.portico.test: reaching 127.0.0.1 works only with that name as SNI.
const tls = makeCertificates(['api.portico.test']);
afterAll(() => tls.dispose());

test('hostname is the TLS server name (SNI and certificate check); the Host header set by the endpoint arrives', async () => {
  const origin = await startOrigin((req, res) => res.end(`host=${req.headers.host}`), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n hostname = "api.portico.test"\n ca_file = "${tls.caFile}"\n}`);
  const { set } = backendsFor(config);
  const response = await set.get('b').send(backendRequest(`${origin.url}/`, { headers: { host: 'api.portico.test' } }));
  expect(await readAll(response.body)).toBe('host=api.portico.test');
  expect(origin.requests[0]).toMatchObject({ servername: 'api.portico.test' });
});

test('without hostname the certificate for another name is refused', async () => {
  const origin = await startOrigin((_req, res) => res.end('no'), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n ca_file = "${tls.caFile}"\n}`);
  const { set } = backendsFor(config);
  const failure = await set.get('b').send(backendRequest(`${origin.url}/`)).catch((e: unknown) => e);
  expect(failure).toMatchObject({ kind: 'backend', detail: expect.stringMatching(/altnames|ERR_TLS_CERT_ALTNAME_INVALID/) });
});

test('a per-request hostname reaches SNI through the Host header', async () => {
  const origin = await startOrigin((req, res) => res.end(`host=${req.headers.host}`), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n hostname = request.headers.x-target\n ca_file = "${tls.caFile}"\n}`);
  expect(config.backends.b!.hostname?.kind).toBe('expr');
  const { set } = backendsFor(config);
  const response = await set.get('b').send(backendRequest(`${origin.url}/`, { headers: { host: 'api.portico.test' } }));
  expect(await readAll(response.body)).toBe('host=api.portico.test');
  expect(origin.requests[0]).toMatchObject({ servername: 'api.portico.test' });
});
