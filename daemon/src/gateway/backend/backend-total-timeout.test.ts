import { expect, test } from 'vitest';
import { GatewayError } from '../errors/error-types.js';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

test('timeout: the total deadline applies before the response head', async () => {
  const origin = await startOrigin(() => {});
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n timeout = "300ms"\n}`);
  const { set } = backendsFor(config);
  const failure = await set.get('b').send(backendRequest(`${origin.url}/`)).catch((e: unknown) => e);
  expect(failure).toMatchObject({ kind: 'backend_timeout', detail: `${origin.url}: timeout after 300ms` });
});

test('timeout: the total deadline cuts a body that hangs after the head', async () => {
  const origin = await startOrigin((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('first part ');
    // ...and never ends.
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n timeout = "400ms"\n}`);
  const { set, log } = backendsFor(config);
  const response = await set.get('b').send(backendRequest(`${origin.url}/`));
  expect(response.status).toBe(200);
  const failure = await readAll(response.body).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(GatewayError);
  expect(failure).toMatchObject({ kind: 'backend_timeout', detail: `${origin.url}: timeout after 400ms` });
  expect(log).toHaveLength(1);
  expect(log[0]).toMatchObject({ status: 200, error_type: 'backend_timeout', response: { bytes: 11 } });
});
