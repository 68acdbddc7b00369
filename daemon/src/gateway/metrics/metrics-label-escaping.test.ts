import { expect, test } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { sampleValue } from './testing/exposition-parser.js';
import { exporterPort, startMeteredGateway } from './testing/metered-gateway.js';
import { fetchExporter, scrape } from './testing/scrape.js';

test('label values escape backslash, double quote and line feed, and read back unchanged', async () => {
  // HCL: \" is a quote, \\ a backslash, \n a line feed.
  const gw = await startMeteredGateway(`
settings {
  beta_metrics = true
  beta_metrics_port = 0
  beta_service_name = "say \\"hi\\" C:\\\\dir\\nnext"
}
server "web" {
  hosts = ["*:0"]
  endpoint "/ping" {
    response { status = 204 }
  }
}
`);
  expect(gw.metrics.serviceName).toBe('say "hi" C:\\dir\nnext');
  expect((await send(gw.url(), '/ping')).status).toBe(204);
  const port = exporterPort(gw);
  await expect.poll(async () => (await fetchExporter(port)).text).toContain('gateway_client_requests_total{service_name="say \\"hi\\" C:\\\\dir\\nnext",server="web"');
  const parsed = await scrape(port);
  expect(sampleValue(parsed, 'gateway_client_requests_total', { service_name: 'say "hi" C:\\dir\nnext', endpoint: '/ping' })).toBe(1);
  expect(sampleValue(parsed, 'gateway_build_info', { service_name: 'say "hi" C:\\dir\nnext', version: '0.0.0-test' })).toBe(1);
});
