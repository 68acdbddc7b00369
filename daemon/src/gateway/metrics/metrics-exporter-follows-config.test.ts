import { expect, test } from 'vitest';
import { freePort, send } from '../http/testing/test-gateway.js';
import { sampleValue } from './testing/exposition-parser.js';
import { loadConfig, startMeteredGateway } from './testing/metered-gateway.js';
import { fetchExporter, scrape } from './testing/scrape.js';

const hcl = (settings: string): string => `
settings {
${settings}
}
server "web" {
  hosts = ["*:0"]
  endpoint "/ping" {
    response { status = 204 }
  }
}
`;

/** Resolves "refused" once nothing listens on the port any more. */
const reachability = (port: number): Promise<string> =>
  fetchExporter(port).then(
    (res) => `answered ${res.status}`,
    (error: NodeJS.ErrnoException) => (error.code === 'ECONNREFUSED' ? 'refused' : `failed ${error.code ?? error.message}`),
  );

test('the exporter starts with beta_metrics, moves with beta_metrics_port, takes the new service_name and closes when turned off', async () => {
  const first = await freePort();
  const gw = await startMeteredGateway(hcl(`beta_metrics = true\nbeta_metrics_port = ${first}\nbeta_service_name = "one"`));
  expect(gw.exporter.boundPort()).toBe(first);
  expect((await send(gw.url(), '/ping')).status).toBe(204);
  await expect.poll(async () => sampleValue(await scrape(first), 'gateway_client_requests_total', { service_name: 'one', endpoint: '/ping', code: '204' })).toBe(1);

  const second = await freePort();
  await gw.apply(await loadConfig(hcl(`beta_metrics = true\nbeta_metrics_port = ${second}\nbeta_service_name = "two"`)));
  expect(gw.exporter.boundPort()).toBe(second);
  expect((await send(gw.url(), '/ping')).status).toBe(204);
  await expect.poll(async () => sampleValue(await scrape(second), 'gateway_client_requests_total', { service_name: 'two', endpoint: '/ping', code: '204' })).toBe(1);
  // Series counted under the old name stay: counters never go back.
  expect(sampleValue(await scrape(second), 'gateway_client_requests_total', { service_name: 'one', endpoint: '/ping', code: '204' })).toBe(1);
  await expect.poll(() => reachability(first)).toBe('refused');

  await gw.apply(await loadConfig(hcl(`beta_metrics = false\nbeta_metrics_port = ${second}`)));
  expect(gw.exporter.boundPort()).toBeNull();
  await expect.poll(() => reachability(second)).toBe('refused');

  // And back on, on the same port as before.
  await gw.apply(await loadConfig(hcl(`beta_metrics = true\nbeta_metrics_port = ${second}\nbeta_service_name = "three"`)));
  expect((await fetchExporter(second)).status).toBe(200);
});
