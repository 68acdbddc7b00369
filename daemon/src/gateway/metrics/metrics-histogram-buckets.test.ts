import { expect, test } from 'vitest';
import type { GatewayLogRecord } from '../contracts.js';
import { createGatewayLogSink } from '../logs/log-sink.js';
import { createGatewayMetrics } from './gateway-metrics.js';
import { createMetricsSink } from './metrics-sink.js';
import { scrape, loopbackExporter } from './testing/scrape.js';
import { loadConfig } from './testing/metered-gateway.js';

const access = (totalMs: number): GatewayLogRecord => ({
  type: 'gateway_access',
  level: 'info',
  timestamp: new Date().toISOString(),
  method: 'GET',
  status: 200,
  server: 's',
  api: '',
  endpoint: '/e',
  timings: { total: totalMs },
});

test('duration histograms count each observation in its bucket and every bucket above: cumulative, +Inf = count, sum in seconds', async () => {
  const metrics = createGatewayMetrics({ version: 'test' });
  const sink = createMetricsSink(createGatewayLogSink({ write: () => undefined }), metrics);
  for (const ms of [3, 7, 10, 300, 20_000]) sink.write(access(ms));
  const exporter = loopbackExporter(metrics);
  await exporter.apply(await loadConfig('settings {\n beta_metrics = true\n beta_metrics_port = 0\n}\nserver {\n}\n'));

  const parsed = await scrape(exporter.boundPort() ?? 0);
  const buckets = parsed.samples
    .filter((s) => s.name === 'gateway_client_request_duration_seconds_bucket' && s.labels.endpoint === '/e')
    .map((s) => [s.labels.le, s.value]);
  expect(buckets).toEqual([
    ['0.005', 1],
    ['0.01', 3],
    ['0.025', 3],
    ['0.05', 3],
    ['0.1', 3],
    ['0.25', 3],
    ['0.5', 4],
    ['1', 4],
    ['2.5', 4],
    ['5', 4],
    ['10', 4],
    ['+Inf', 5],
  ]);
  const count = parsed.samples.find((s) => s.name === 'gateway_client_request_duration_seconds_count');
  const sum = parsed.samples.find((s) => s.name === 'gateway_client_request_duration_seconds_sum');
  expect(count?.value).toBe(5);
  expect(sum?.value).toBeCloseTo(20.32, 10);
});
