import { createServer, type AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { cleanup, loadDefinitions } from '../backend/testing/backend-fixture.js';
import { startOrigin } from '../backend/testing/origin.js';
import { monitorFor } from './testing/health-fixture.js';

test('timeout: a check slower than its timeout fails with "timeout after …"', async () => {
  const origin = await startOrigin(() => {});
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  interval = "500ms"\n  timeout = "150ms"\n  failure_threshold = 1\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');
  expect(monitor.snapshot().b?.error).toBe('timeout after 150ms');
});

test('a refused connection reads as node says it', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const config = await loadDefinitions(`backend "b" {\n origin = "http://127.0.0.1:${port}"\n beta_health {\n  failure_threshold = 1\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');
  expect(monitor.snapshot().b?.error).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`);
});
