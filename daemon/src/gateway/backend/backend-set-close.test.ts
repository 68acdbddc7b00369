import { expect, test } from 'vitest';
import { backendRequest, backendsFor, barrier, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

test('close() lets in-flight requests finish, then closes the connections', async () => {
  const release = barrier();
  const origin = await startOrigin((_req, res) => void release.promise.then(() => res.end('finished')));
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set } = backendsFor(config);
  const inFlight = set.get('b').send(backendRequest(`${origin.url}/`));
  await expect.poll(() => origin.requests.length).toBe(1);
  let closed = false;
  const closing = set.close().then(() => {
    closed = true;
  });
  expect(closed).toBe(false);
  release.open();
  expect(await readAll((await inFlight).body)).toBe('finished');
  await closing;
  await expect.poll(() => origin.open()).toBe(0);
});
