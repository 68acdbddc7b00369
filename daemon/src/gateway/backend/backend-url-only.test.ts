import { expect, test } from 'vitest';
import { loadOk } from '../config/testing/config-files.js';
import { backendRequest, backendsFor, cleanup, readAll } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

test('a url-only backend whose origin is per request reaches each origin over its own pool', async () => {
  const one = await startOrigin((_req, res) => res.end('one'));
  cleanup(one.close);
  const two = await startOrigin((_req, res) => res.end('two'));
  cleanup(two.close);
  const config = await loadOk({
    'portico.hcl': 'server {\n  endpoint "/" {\n    proxy {\n      url = "http://127.0.0.1:${request.headers.x-port}/"\n    }\n  }\n}\n',
  });
  const [name, backend] = Object.entries(config.backends)[0]!;
  expect(backend.origin).toBeNull();
  const { set } = backendsFor(config);
  expect(await readAll((await set.get(name).send(backendRequest(`${one.url}/`))).body)).toBe('one');
  expect(await readAll((await set.get(name).send(backendRequest(`${two.url}/`))).body)).toBe('two');
  expect([one.requests.length, two.requests.length]).toEqual([1, 1]);
});
