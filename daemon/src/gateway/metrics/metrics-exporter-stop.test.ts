import { expect, test } from 'vitest';
import { createGatewayMetrics } from './gateway-metrics.js';
import { loadConfig } from './testing/metered-gateway.js';
import { fetchExporter, loopbackExporter } from './testing/scrape.js';

test('stop() closes the port, even with a prepared config not yet committed; later applies are refused', async () => {
  const exporter = loopbackExporter(createGatewayMetrics({ version: 'test' }));
  const on = await loadConfig('settings {\n beta_metrics = true\n beta_metrics_port = 0\n}\nserver {\n}\n');
  await exporter.apply(on);
  const port = exporter.boundPort() ?? 0;
  expect((await fetchExporter(port)).status).toBe(200);

  const pending = await exporter.prepare(await loadConfig('settings {\n beta_metrics = true\n beta_metrics_port = 0\n beta_service_name = "later"\n}\nserver {\n}\n'));
  await exporter.stop();
  pending.commit();
  expect(exporter.boundPort()).toBeNull();
  await expect(fetchExporter(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  await expect(exporter.apply(on)).rejects.toThrow('metrics exporter: cannot apply a configuration after stop');
});
