import { expect, test } from 'vitest';
import { createGatewayMetrics } from './gateway-metrics.js';
import { loadConfig } from './testing/metered-gateway.js';
import { fetchExporter, loopbackExporter } from './testing/scrape.js';

test('GET and HEAD /metrics answer the exposition format; other paths 404; other methods 405 with Allow', async () => {
  const exporter = loopbackExporter(createGatewayMetrics({ version: 'test' }));
  await exporter.apply(await loadConfig('settings {\n beta_metrics = true\n beta_metrics_port = 0\n}\nserver {\n}\n'));
  const port = exporter.boundPort() ?? 0;

  const get = await fetchExporter(port, '/metrics?name[]=x');
  expect(get.status).toBe(200);
  expect(get.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  expect(get.headers['cache-control']).toBe('no-store');
  expect(get.text).toContain('# TYPE gateway_client_requests_total counter\n');

  const head = await fetchExporter(port, '/metrics', 'HEAD');
  expect(head.status).toBe(200);
  expect(head.text).toBe('');
  expect(Number(head.headers['content-length'])).toBeGreaterThan(0);

  const root = await fetchExporter(port, '/');
  expect(root.status).toBe(404);
  expect(root.text).toBe('not found: the metrics are at /metrics\n');
  expect((await fetchExporter(port, '/metrics/extra')).status).toBe(404);

  const post = await fetchExporter(port, '/metrics', 'POST');
  expect(post.status).toBe(405);
  expect(post.headers.allow).toBe('GET, HEAD');
});
