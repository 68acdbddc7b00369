import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ConfigManager } from '../reload/config-manager.js';
import { tempDir } from '../reload/testing/config-files.js';
import { testLogger } from '../backend/testing/backend-fixture.js';
import { createGatewayMetrics } from './gateway-metrics.js';
import { sampleValue } from './testing/exposition-parser.js';
import { loopbackExporter, scrape } from './testing/scrape.js';

const managers: ConfigManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
});

const config = (status: number): string => `settings {\n  beta_metrics = true\n  beta_metrics_port = 0\n  beta_service_name = "edge"\n}\nserver {\n  endpoint "/" {\n    response { status = ${status} }\n  }\n}\n`;

test('reloads are counted by result (applied, rejected, failed) from the real ConfigManager, with the last outcome and success time', async () => {
  const metrics = createGatewayMetrics({ version: 'test' });
  const exporter = loopbackExporter(metrics);
  let failNext = false;
  const file = join(tempDir(), 'portico.hcl');
  writeFileSync(file, config(200));
  const manager = new ConfigManager({
    files: [file],
    env: {},
    logger: testLogger(),
    target: {
      async apply(next) {
        if (failNext) throw new Error('the gateway could not apply it');
        await exporter.apply(next);
      },
    },
    onReload: (record) => metrics.recordReload(record.result),
  });
  managers.push(manager);
  await manager.start();
  const port = exporter.boundPort() ?? 0;
  const reloads = async (result: string): Promise<number | undefined> => sampleValue(await scrape(port), 'gateway_config_reloads_total', { service_name: 'edge', result });
  expect(await reloads('applied')).toBe(1);
  expect(await reloads('rejected')).toBe(0);
  expect(sampleValue(await scrape(port), 'gateway_config_last_reload_successful')).toBe(1);
  const appliedAt = sampleValue(await scrape(port), 'gateway_config_last_reload_success_timestamp_seconds') ?? 0;
  expect(Math.abs(appliedAt - Date.now() / 1000)).toBeLessThan(3600);

  writeFileSync(file, 'server {\n  endpoint "/" {\n');
  expect((await manager.reload('control'))?.result).toBe('rejected');
  expect(await reloads('rejected')).toBe(1);
  expect(sampleValue(await scrape(port), 'gateway_config_last_reload_successful')).toBe(0);

  failNext = true;
  writeFileSync(file, config(204));
  expect((await manager.reload('control'))?.result).toBe('failed');
  expect(await reloads('failed')).toBe(1);

  failNext = false;
  expect((await manager.reload('control'))?.result).toBe('applied');
  expect(await reloads('applied')).toBe(2);
  expect(sampleValue(await scrape(port), 'gateway_config_last_reload_successful')).toBe(1);
  expect(sampleValue(await scrape(port), 'gateway_config_last_reload_success_timestamp_seconds')).toBeGreaterThanOrEqual(appliedAt);
});
