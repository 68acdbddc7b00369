import { expect, test } from 'vitest';
import { cleanup, loadDefinitions } from '../backend/testing/backend-fixture.js';
import { startOrigin } from '../backend/testing/origin.js';
import { monitorFor } from './testing/health-fixture.js';

test('backends without beta_health are healthy and never checked; every backend is in the snapshot', async () => {
  const origin = await startOrigin((_req, res) => res.end());
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "plain" {\n origin = "${origin.url}"\n}\nbackend "checked" {\n origin = "${origin.url}"\n beta_health {\n  path = "/h"\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().checked?.state).toBe('healthy');
  expect(Object.keys(monitor.snapshot()).sort()).toEqual(['checked', 'plain']);
  expect(monitor.snapshot().plain).toMatchObject({ state: 'healthy', healthy: true, checked: false, lastCheckAt: null, error: '' });
  expect(origin.requests.every((r) => r.path === '/h')).toBe(true);
});
