import { expect, test } from 'vitest';
import { cleanup, loadDefinitions } from '../backend/testing/backend-fixture.js';
import { startOrigin } from '../backend/testing/origin.js';
import { monitorFor, transitions } from './testing/health-fixture.js';

test('unknown → healthy → degraded → unhealthy (at failure_threshold) → healthy after one passing check', async () => {
  let status = 200;
  const origin = await startOrigin((_req, res) => res.writeHead(status).end());
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  interval = "100ms"\n  failure_threshold = 2\n }\n}`);
  const { monitor, events } = monitorFor(config);
  const seen: string[] = [];
  monitor.onChange((c) => seen.push(`${c.from}→${c.to}`));

  expect(monitor.snapshot().b).toMatchObject({ state: 'unknown', healthy: true, checked: true, lastCheckAt: null });
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');

  status = 503;
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');
  expect(monitor.snapshot().b).toMatchObject({ healthy: false, error: 'unexpected status 503', failures: expect.any(Number), latencyMs: expect.any(Number) });
  expect(monitor.snapshot().b!.failures).toBeGreaterThanOrEqual(2);

  status = 204;
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');
  expect(monitor.snapshot().b).toMatchObject({ healthy: true, error: '', failures: 0 });

  const expected = ['unknown→healthy', 'healthy→degraded', 'degraded→unhealthy', 'unhealthy→healthy'];
  expect(transitions(monitor.timeline())).toEqual(expected);
  expect(seen).toEqual(expected);
  expect(transitions(events)).toEqual(expected);
});

test('degraded stays usable: healthy is false only when unhealthy', async () => {
  let status = 200;
  const origin = await startOrigin((_req, res) => res.writeHead(status).end());
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  interval = "100ms"\n  failure_threshold = 100\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');
  status = 500;
  await expect.poll(() => monitor.snapshot().b?.failures).toBeGreaterThanOrEqual(2);
  expect(monitor.snapshot().b).toMatchObject({ state: 'degraded', healthy: true });
});

test('failure_threshold = 1: the first failed check makes it unhealthy', async () => {
  const origin = await startOrigin((_req, res) => res.writeHead(500).end());
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  interval = "1s"\n  failure_threshold = 1\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');
  expect(transitions(monitor.timeline())).toEqual(['unknown→unhealthy']);
});
