import { expect, test } from 'vitest';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { freePort, send } from '../http/testing/test-gateway.js';
import { sampleValue } from './testing/exposition-parser.js';
import { exporterPort, startMeteredGateway } from './testing/metered-gateway.js';
import { scrape } from './testing/scrape.js';

test('client and backend requests through the real gateway are counted per server/api/endpoint and backend, even at log_level warn', async () => {
  const backend = await startBackend();
  const closedPort = await freePort();
  const gw = await startMeteredGateway(`
settings {
  beta_metrics = true
  beta_metrics_port = 0
  beta_service_name = "shop"
  log_level = "warn"
  log_format = "json"
}
server "front" {
  hosts = ["*:0"]
  api "v1" {
    base_path = "/v1"
    endpoint "/items/{id}" {
      proxy { backend = "items" }
    }
    endpoint "/broken" {
      proxy { backend = "down" }
    }
  }
}
definitions {
  backend "items" { origin = "${backend.origin}" }
  backend "down" { origin = "http://127.0.0.1:${closedPort}" }
}
`);
  for (const id of ['1', '2', '3']) expect((await send(gw.url(), `/v1/items/${id}`)).status).toBe(200);
  expect((await send(gw.url(), '/v1/items/4', { method: 'POST', body: 'x' })).status).toBe(200);
  expect((await send(gw.url(), '/v1/broken')).status).toBe(502);
  expect((await send(gw.url(), '/nowhere')).status).toBe(404);

  const port = exporterPort(gw);
  const route = { service_name: 'shop', server: 'front', api: 'v1', endpoint: '/items/{id}' };
  await expect.poll(async () => sampleValue(await scrape(port), 'gateway_backend_requests_total', { backend: 'items', code: '200' })).toBe(4);
  const m = await scrape(port);
  expect(sampleValue(m, 'gateway_client_requests_total', { ...route, method: 'GET', code: '200' })).toBe(3);
  expect(sampleValue(m, 'gateway_client_requests_total', { ...route, method: 'POST', code: '200' })).toBe(1);
  expect(sampleValue(m, 'gateway_client_request_duration_seconds_count', route)).toBe(4);
  expect(sampleValue(m, 'gateway_client_request_duration_seconds_sum', route)).toBeGreaterThan(0);
  expect(sampleValue(m, 'gateway_client_requests_total', { endpoint: '/broken', code: '502' })).toBe(1);
  expect(sampleValue(m, 'gateway_client_request_errors_total', { endpoint: '/broken', error_type: 'backend' })).toBe(1);
  expect(sampleValue(m, 'gateway_client_requests_total', { service_name: 'shop', server: 'front', api: '', endpoint: '', code: '404' })).toBe(1);
  expect(sampleValue(m, 'gateway_backend_requests_total', { service_name: 'shop', backend: 'down', code: 'none' })).toBe(1);
  expect(sampleValue(m, 'gateway_backend_request_errors_total', { backend: 'down', error_type: 'backend' })).toBe(1);
  expect(sampleValue(m, 'gateway_backend_request_duration_seconds_count', { backend: 'items' })).toBe(4);

  // The inner sink still filters: successful access lines are not printed at warn, the failed one is.
  const printed = gw.lines.map((l) => JSON.parse(l) as { type: string; status?: number });
  expect(printed.filter((r) => r.type === 'gateway_access' && r.status === 200)).toEqual([]);
  expect(printed.filter((r) => r.type === 'gateway_access' && r.status === 502)).toHaveLength(1);
});
