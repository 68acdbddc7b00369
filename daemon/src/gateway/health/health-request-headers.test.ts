import { expect, test } from 'vitest';
import { VERSION } from '../../core/version.js';
import { cleanup, loadDefinitions } from '../backend/testing/backend-fixture.js';
import { startOrigin } from '../backend/testing/origin.js';
import { monitorFor } from './testing/health-fixture.js';

test('a check is GET origin + path (with query), with the configured headers and the default User-Agent', async () => {
  const origin = await startOrigin((_req, res) => res.end());
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  path = "/health?deep=1"\n  headers = { X-Check = "yes" }\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');
  expect(origin.requests[0]).toMatchObject({ method: 'GET', path: '/health?deep=1', headers: { 'x-check': 'yes', 'user-agent': `Portico/${VERSION} health-check` } });
});

test('a User-Agent in headers replaces the default', async () => {
  const origin = await startOrigin((_req, res) => res.end());
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  headers = { User-Agent = "probe/1" }\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');
  expect(origin.requests[0]!.headers['user-agent']).toBe('probe/1');
  expect(origin.requests[0]!.path).toBe('/');
});
