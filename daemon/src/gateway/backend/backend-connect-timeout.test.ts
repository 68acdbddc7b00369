import { createServer, type AddressInfo, type Socket } from 'node:net';
import { expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions } from './testing/backend-fixture.js';

test('connect_timeout: a TLS handshake that never completes is backend_timeout', async () => {
  // Accepts TCP and never answers the ClientHello: the connection is never established.
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanup(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const config = await loadDefinitions(`backend "b" {\n origin = "https://127.0.0.1:${port}"\n connect_timeout = "200ms"\n}`);
  const { set, log } = backendsFor(config);
  const failure = await set.get('b').send(backendRequest(`https://127.0.0.1:${port}/`)).catch((e: unknown) => e);
  expect(failure).toMatchObject({ kind: 'backend_timeout', status: 504, detail: `https://127.0.0.1:${port}: connect timeout after 200ms` });
  expect(log[0]).toMatchObject({ error_type: 'backend_timeout', status: null });
});
