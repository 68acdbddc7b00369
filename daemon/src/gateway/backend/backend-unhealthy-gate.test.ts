import { expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { startOrigin, type TestOrigin } from './testing/origin.js';

async function failingHealth(): Promise<TestOrigin> {
  const origin = await startOrigin((req, res) => {
    if (req.url === '/health') res.writeHead(503).end();
    else res.end('served');
  });
  cleanup(origin.close);
  return origin;
}

const health = ' beta_health {\n  path = "/health"\n  interval = "1s"\n  failure_threshold = 1\n }';

test('an unhealthy backend answers backend_unhealthy without sending the request', async () => {
  const origin = await failingHealth();
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n${health}\n}`);
  const { set, health: monitor, log } = backendsFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');
  const failure = await set.get('b').send(backendRequest(`${origin.url}/api`, { requestId: 'gated' })).catch((e: unknown) => e);
  expect(failure).toMatchObject({ kind: 'backend_unhealthy', status: 502, source: 'b', detail: `${origin.url}: backend "b" is unhealthy: unexpected status 503` });
  expect(origin.requests.filter((r) => r.path === '/api')).toHaveLength(0);
  expect(log.find((r) => r.uid === 'gated')).toMatchObject({ type: 'gateway_backend', error_type: 'backend_unhealthy', status: null });
});

test('use_when_unhealthy sends it anyway', async () => {
  const origin = await failingHealth();
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n use_when_unhealthy = true\n${health}\n}`);
  const { set, health: monitor } = backendsFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');
  expect(await readAll((await set.get('b').send(backendRequest(`${origin.url}/api`))).body)).toBe('served');
});

test('unknown (before the first check) and degraded backends still serve', async () => {
  const origin = await failingHealth();
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  path = "/health"\n  interval = "1s"\n  failure_threshold = 5\n }\n}`);
  const { set, health: monitor } = backendsFor(config);
  expect(monitor.snapshot().b?.state).toBe('unknown');
  expect(await readAll((await set.get('b').send(backendRequest(`${origin.url}/api`))).body)).toBe('served');
  await expect.poll(() => monitor.snapshot().b?.state).toBe('degraded');
  expect(await readAll((await set.get('b').send(backendRequest(`${origin.url}/api`))).body)).toBe('served');
});
