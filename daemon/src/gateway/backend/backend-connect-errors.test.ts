import { createServer, type AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { GatewayError } from '../errors/error-types.js';
import { backendRequest, backendsFor, loadDefinitions } from './testing/backend-fixture.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('connection refused is a backend error whose detail names the origin and the cause', async () => {
  const port = await freePort();
  const config = await loadDefinitions(`backend "b" {\n origin = "http://127.0.0.1:${port}"\n}`);
  const { set, log } = backendsFor(config);
  const failure = await set.get('b').send(backendRequest(`http://127.0.0.1:${port}/x`)).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(GatewayError);
  expect(failure).toMatchObject({ kind: 'backend', status: 502, source: 'b', detail: `http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}` });
  expect(log).toHaveLength(1);
  expect(log[0]).toMatchObject({ level: 'error', backend: 'b', status: null, error_type: 'backend', message: expect.stringContaining('ECONNREFUSED') });
});

test('a name that does not resolve is a backend error', async () => {
  const config = await loadDefinitions(`backend "b" {\n origin = "http://no-such-host.invalid"\n}`);
  const { set } = backendsFor(config);
  const failure = await set.get('b').send(backendRequest('http://no-such-host.invalid/')).catch((e: unknown) => e);
  expect(failure).toMatchObject({ kind: 'backend', detail: expect.stringMatching(/^http:\/\/no-such-host\.invalid: getaddrinfo (ENOTFOUND|EAI_AGAIN)/) });
});

test('a connection the backend closes before answering is a backend error', async () => {
  const server = createServer((socket) => socket.once('data', () => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const config = await loadDefinitions(`backend "b" {\n origin = "http://127.0.0.1:${port}"\n}`);
  const { set } = backendsFor(config);
  const failure = await set.get('b').send(backendRequest(`http://127.0.0.1:${port}/`)).catch((e: unknown) => e);
  server.close();
  expect(failure).toMatchObject({ kind: 'backend', detail: expect.stringContaining('connection closed by the backend') });
});
