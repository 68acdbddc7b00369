import { expect, test } from 'vitest';
import { startBackend } from '../endpoint/testing/endpoint-gateway.js';
import { freePort, send } from '../http/testing/test-gateway.js';
import { parseExposition, sampleValue } from './testing/exposition-parser.js';
import { exporterPort, startMeteredGateway } from './testing/metered-gateway.js';
import { fetchExporter } from './testing/scrape.js';

const FAMILIES = {
  gateway_client_requests_total: 'counter',
  gateway_client_request_duration_seconds: 'histogram',
  gateway_client_request_errors_total: 'counter',
  gateway_backend_requests_total: 'counter',
  gateway_backend_request_duration_seconds: 'histogram',
  gateway_backend_request_errors_total: 'counter',
  gateway_backend_health_checks_total: 'counter',
  gateway_backend_up: 'gauge',
  gateway_backend_health_state: 'gauge',
  gateway_config_reloads_total: 'counter',
  gateway_config_last_reload_successful: 'gauge',
  gateway_config_last_reload_success_timestamp_seconds: 'gauge',
  gateway_build_info: 'gauge',
  process_resident_memory_bytes: 'gauge',
  process_start_time_seconds: 'gauge',
  process_cpu_seconds_total: 'counter',
};

test('every line of a scrape with every family populated matches the 0.0.4 text format grammar, each family with HELP and TYPE', async () => {
  const backend = await startBackend();
  const closedPort = await freePort();
  const gw = await startMeteredGateway(
    `
settings {
  beta_metrics = true
  beta_metrics_port = 0
}
server "web" {
  hosts = ["*:0"]
  api {
    endpoint "/p/**" {
      proxy { backend = "b" }
    }
    endpoint "/down" {
      proxy { backend = "down" }
    }
  }
}
definitions {
  backend "b" {
    origin = "${backend.origin}"
    beta_health { interval = "100ms" }
  }
  backend "down" { origin = "http://127.0.0.1:${closedPort}" }
}
`,
    { health: true },
  );
  gw.metrics.recordReload('applied');
  expect((await send(gw.url(), '/p/x')).status).toBe(200);
  expect((await send(gw.url(), '/down')).status).toBe(502);
  const port = exporterPort(gw);
  await expect.poll(async () => sampleValue(parseExposition((await fetchExporter(port)).text), 'gateway_backend_health_checks_total', { code: '200' })).toBeGreaterThan(0);

  const { text } = await fetchExporter(port);
  const parsed = parseExposition(text);
  for (const [name, type] of Object.entries(FAMILIES)) {
    const family = parsed.families.get(name);
    expect(family?.type, name).toBe(type);
    expect(family?.help, name).toMatch(/\S/);
    expect(family?.samples.length, name).toBeGreaterThan(0);
  }
  expect([...parsed.families.keys()].sort()).toEqual(Object.keys(FAMILIES).sort());
  expect(sampleValue(parsed, 'process_start_time_seconds')).toBeLessThanOrEqual(Date.now() / 1000);
  expect(sampleValue(parsed, 'process_resident_memory_bytes')).toBeGreaterThan(0);
});

test('the test parser rejects what the grammar forbids', () => {
  const bad = [
    'no_newline_at_end 1',
    'bad-name 1\n',
    'x{a="unterminated} 1\n',
    'x{a="bad \\t escape"} 1\n',
    'x{a="1",a="2"} 1\n',
    'x{a=1} 1\n',
    'x one\n',
    'x 1\nx 2\n',
    '# TYPE x counter\nx 1\n# TYPE x counter\n',
    '# TYPE x counter\nx{a="1"} 1\ny 1\nx{a="2"} 1\n',
    '# TYPE x wobble\n',
    '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\nh_sum 1\n',
    '# TYPE h histogram\nh_bucket{le="1"} 1\nh_count 1\nh_sum 1\n',
  ];
  for (const payload of bad) expect(() => parseExposition(payload), payload).toThrow();
  expect(parseExposition('# HELP x a \\\\ b\n# TYPE x gauge\nx{a="q\\"\\n"} -Inf 123\n').samples).toEqual([{ name: 'x', labels: { a: 'q"\n' }, value: -Infinity }]);
});
