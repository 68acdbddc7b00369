import { expect, test } from 'vitest';
import { GatewayError } from '../errors/error-types.js';
import { backendRequest, backendsFor, cleanup, loadDefinitions } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

test("the caller's signal aborts a pending request; a GatewayError reason (shutdown) passes through as it is", async () => {
  const origin = await startOrigin(() => {});
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set } = backendsFor(config);

  const controller = new AbortController();
  const pending = set.get('b').send(backendRequest(`${origin.url}/`, { signal: controller.signal }));
  await expect.poll(() => origin.requests.length).toBe(1);
  const shutdown = new GatewayError('server_shutdown', 'shutdown deadline passed');
  controller.abort(shutdown);
  await expect(pending).rejects.toBe(shutdown);
  await expect.poll(() => origin.open()).toBe(0);

  const gone = new AbortController();
  gone.abort(new Error('client closed the connection'));
  await expect(set.get('b').send(backendRequest(`${origin.url}/`, { signal: gone.signal }))).rejects.toMatchObject({ kind: 'backend', detail: 'request canceled: client closed the connection' });
});
