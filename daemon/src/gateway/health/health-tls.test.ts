import { afterAll, expect, test } from 'vitest';
import { cleanup, loadDefinitions } from '../backend/testing/backend-fixture.js';
import { makeCertificates } from '../backend/testing/certificates.js';
import { startOrigin } from '../backend/testing/origin.js';
import { monitorFor } from './testing/health-fixture.js';

const tls = makeCertificates(['api.portico.test']);
afterAll(() => tls.dispose());

test("checks use the backend's TLS settings: ca_file, and hostname as Host and SNI", async () => {
  const origin = await startOrigin((_req, res) => res.end('ok'), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n hostname = "api.portico.test"\n ca_file = "${tls.caFile}"\n beta_health {\n  expected_text = "ok"\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');
  expect(origin.requests[0]).toMatchObject({ servername: 'api.portico.test', headers: { host: 'api.portico.test' } });
});

test('without the CA the check fails on the certificate', async () => {
  const origin = await startOrigin((_req, res) => res.end('ok'), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n hostname = "api.portico.test"\n beta_health {\n  failure_threshold = 1\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');
  expect(monitor.snapshot().b?.error).toMatch(/certificate/);
});

test('disable_certificate_validation applies to checks too', async () => {
  const origin = await startOrigin((_req, res) => res.end('ok'), { tls });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n disable_certificate_validation = true\n beta_health {\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');
});
