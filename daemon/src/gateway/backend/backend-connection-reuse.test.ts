import { expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll, settle } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

async function threeInARow(reuse: string): Promise<{ connections: number; connectionHeaders: (string | undefined)[] }> {
  const origin = await startOrigin((_req, res) => res.end('ok'));
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n ${reuse}\n}`);
  const { set } = backendsFor(config);
  for (let i = 0; i < 3; i++) {
    await readAll((await set.get('b').send(backendRequest(`${origin.url}/`))).body);
    await settle();
  }
  return { connections: origin.connections(), connectionHeaders: origin.requests.map((r) => r.headers.connection) };
}

test('connections are kept alive and reused by default', async () => {
  expect(await threeInARow('')).toEqual({ connections: 1, connectionHeaders: ['keep-alive', 'keep-alive', 'keep-alive'] });
});

test('disable_connection_reuse opens a connection per request', async () => {
  expect(await threeInARow('disable_connection_reuse = true')).toEqual({ connections: 3, connectionHeaders: ['close', 'close', 'close'] });
});
