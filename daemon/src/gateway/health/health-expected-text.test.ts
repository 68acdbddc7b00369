import { expect, test } from 'vitest';
import { cleanup, loadDefinitions } from '../backend/testing/backend-fixture.js';
import { startOrigin } from '../backend/testing/origin.js';
import { monitorFor } from './testing/health-fixture.js';

test('expected_text: the body must contain the text', async () => {
  let body = 'status: ok';
  const origin = await startOrigin((_req, res) => res.end(body));
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n beta_health {\n  interval = "100ms"\n  failure_threshold = 1\n  expected_text = "ok"\n }\n}`);
  const { monitor } = monitorFor(config);
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');
  body = 'status: down';
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');
  expect(monitor.snapshot().b?.error).toBe('expected text "ok" not found');
});
