import { expect, test } from 'vitest';
import { backendRequest, backendsFor, barrier, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

test('max_connections bounds the concurrent sockets to the origin; further requests wait for a free one', async () => {
  const release = barrier();
  const origin = await startOrigin((_req, res) => {
    void release.promise.then(() => res.end('done'));
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n max_connections = 2\n}`);
  const { set } = backendsFor(config);

  const responses = Array.from({ length: 5 }, (_, i) => set.get('b').send(backendRequest(`${origin.url}/${i}`)));
  await expect.poll(() => origin.requests.length).toBe(2);
  expect(origin.open()).toBe(2);
  release.open();
  const bodies = await Promise.all(responses.map(async (r) => readAll((await r).body)));
  expect(bodies).toEqual(['done', 'done', 'done', 'done', 'done']);
  expect(origin.requests).toHaveLength(5);
  expect(origin.maxOpen()).toBe(2);
});

test('max_connections = 0 means unlimited', async () => {
  const release = barrier();
  const origin = await startOrigin((_req, res) => {
    void release.promise.then(() => res.end('done'));
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set } = backendsFor(config);
  const responses = Array.from({ length: 5 }, (_, i) => set.get('b').send(backendRequest(`${origin.url}/${i}`)));
  await expect.poll(() => origin.requests.length).toBe(5);
  expect(origin.open()).toBe(5);
  release.open();
  await Promise.all(responses.map(async (r) => readAll((await r).body)));
});
