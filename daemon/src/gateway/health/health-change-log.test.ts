import { expect, test } from 'vitest';
import { cleanup, loadDefinitions } from '../backend/testing/backend-fixture.js';
import { startOrigin } from '../backend/testing/origin.js';
import { monitorFor } from './testing/health-fixture.js';

test('each state change is logged (gateway_daemon record naming backend, from, to, error) and checks as gateway_backend records', async () => {
  let status = 200;
  const origin = await startOrigin((_req, res) => res.writeHead(status).end());
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  interval = "100ms"\n  failure_threshold = 2\n  path = "/health?token=s3cret"\n }\n}`);
  const { monitor, records } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');
  status = 503;
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');

  const changes = records.filter((r) => r.type === 'gateway_daemon');
  expect(changes.map((r) => [r.level, r.from, r.to])).toEqual([
    ['info', 'unknown', 'healthy'],
    ['warn', 'healthy', 'degraded'],
    ['error', 'degraded', 'unhealthy'],
  ]);
  expect(changes[2]).toMatchObject({ backend: 'b', error: 'unexpected status 503', message: 'backend "b": health degraded → unhealthy: unexpected status 503', url: `${origin.url}/health?token=***` });
  const checks = records.filter((r) => r.type === 'gateway_backend');
  expect(checks.length).toBeGreaterThanOrEqual(3);
  expect(checks.every((r) => r.handler === 'health-check' && r.backend === 'b')).toBe(true);
  expect(checks.find((r) => r.status === 503)).toMatchObject({ level: 'warn', message: 'unexpected status 503' });
  expect(JSON.stringify(records)).not.toContain('s3cret');
});

test('without a log sink the daemon logger writes the change', async () => {
  const origin = await startOrigin((_req, res) => res.writeHead(500).end());
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  failure_threshold = 1\n }\n}`);
  const { monitor, lines } = monitorFor(config, { sink: false });
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');
  const entry = JSON.parse(lines.find((l) => l.includes('health unknown'))!) as Record<string, unknown>;
  expect(entry).toMatchObject({ level: 'error', backend: 'b', from: 'unknown', to: 'unhealthy', error: 'unexpected status 500' });
});
