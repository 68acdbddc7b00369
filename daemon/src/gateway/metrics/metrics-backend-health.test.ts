import { expect, test } from 'vitest';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { freePort, send } from '../http/testing/test-gateway.js';
import { sampleValue } from './testing/exposition-parser.js';
import { exporterPort, startMeteredGateway } from './testing/metered-gateway.js';
import { scrape } from './testing/scrape.js';

test('backend health from the real monitor: up 1 unless unhealthy, one state of four set; health checks counted apart from traffic', async () => {
  const backend = await startBackend();
  const closedPort = await freePort();
  const gw = await startMeteredGateway(
    `
settings {
  beta_metrics = true
  beta_metrics_port = 0
}
server {
  hosts = ["*:0"]
  endpoint "/ok" {
    proxy { backend = "checked" }
  }
}
definitions {
  backend "checked" {
    origin = "${backend.origin}"
    beta_health {
      path = "/health"
      interval = "100ms"
    }
  }
  backend "gone" {
    origin = "http://127.0.0.1:${closedPort}"
    beta_health {
      interval = "100ms"
      failure_threshold = 1
    }
  }
  backend "plain" { origin = "${backend.origin}" }
}
`,
    { health: true },
  );
  const port = exporterPort(gw);
  const state = async (backend: string): Promise<string | undefined> => (await scrape(port)).samples.find((s) => s.name === 'gateway_backend_health_state' && s.labels.backend === backend && s.value === 1)?.labels.state;
  await expect.poll(() => state('gone')).toBe('unhealthy');
  await expect.poll(() => state('checked')).toBe('healthy');
  expect((await send(gw.url(), '/ok')).status).toBe(200);
  await expect.poll(async () => sampleValue(await scrape(port), 'gateway_backend_requests_total', { backend: 'checked', code: '200' })).toBe(1);

  const m = await scrape(port);
  expect(sampleValue(m, 'gateway_backend_up', { backend: 'checked' })).toBe(1);
  expect(sampleValue(m, 'gateway_backend_up', { backend: 'gone' })).toBe(0);
  expect(sampleValue(m, 'gateway_backend_up', { backend: 'plain' })).toBe(1);
  expect(m.samples.filter((s) => s.name === 'gateway_backend_health_state' && s.labels.backend === 'gone').map((s) => `${s.labels.state}=${s.value}`)).toEqual(['unknown=0', 'healthy=0', 'degraded=0', 'unhealthy=1']);
  expect(await state('plain')).toBe('healthy');
  expect(sampleValue(m, 'gateway_backend_health_checks_total', { backend: 'checked', code: '200' })).toBeGreaterThanOrEqual(1);
  expect(sampleValue(m, 'gateway_backend_health_checks_total', { backend: 'gone', code: 'none' })).toBeGreaterThanOrEqual(1);
  expect(sampleValue(m, 'gateway_backend_requests_total', { backend: 'gone' })).toBeUndefined();
});
