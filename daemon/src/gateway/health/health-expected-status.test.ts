import { expect, test } from 'vitest';
import { cleanup, loadDefinitions } from '../backend/testing/backend-fixture.js';
import { startOrigin } from '../backend/testing/origin.js';
import { monitorFor } from './testing/health-fixture.js';

test('expected_status replaces the default list', async () => {
  let status = 418;
  const origin = await startOrigin((_req, res) => res.writeHead(status).end());
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  interval = "100ms"\n  failure_threshold = 1\n  expected_status = [418]\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');
  status = 200;
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');
  expect(monitor.snapshot().b?.error).toBe('unexpected status 200');
});

test('by default 200, 204 and 301 pass (a redirect is not followed) and others fail', async () => {
  let status = 301;
  const origin = await startOrigin((req, res) => {
    if (req.url === '/elsewhere') res.writeHead(500).end();
    else res.writeHead(status, { Location: '/elsewhere' }).end();
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  interval = "100ms"\n  failure_threshold = 1\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');
  expect(origin.requests.every((r) => r.path === '/')).toBe(true);
  status = 302;
  await expect.poll(() => monitor.snapshot().b?.error).toBe('unexpected status 302');
});
