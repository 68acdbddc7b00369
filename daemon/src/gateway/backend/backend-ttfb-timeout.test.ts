import { expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

test('ttfb_timeout: no response head in time is backend_timeout', async () => {
  const origin = await startOrigin(() => {
    // Never answers.
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n ttfb_timeout = "250ms"\n}`);
  const { set } = backendsFor(config);
  const failure = await set.get('b').send(backendRequest(`${origin.url}/slow`)).catch((e: unknown) => e);
  expect(failure).toMatchObject({ kind: 'backend_timeout', detail: `${origin.url}: ttfb timeout after 250ms` });
  expect(origin.requests.map((r) => r.path)).toEqual(['/slow']);
});
