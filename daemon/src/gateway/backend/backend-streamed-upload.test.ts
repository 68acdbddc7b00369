import { PassThrough } from 'node:stream';
import { expect, test } from 'vitest';
import { backendRequest, backendsFor, barrier, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

test('a request body stream is piped: the origin receives the first chunk before the client has finished sending', async () => {
  const firstChunkArrived = barrier();
  let received = 0;
  const origin = await startOrigin((req, res) => {
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      firstChunkArrived.open();
    });
    req.on('end', () => res.end(`got ${received} bytes, ${req.headers['transfer-encoding']}`));
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set, log } = backendsFor(config);

  const upload = new PassThrough();
  const chunk = Buffer.alloc(256 * 1024, 'a');
  const pending = set.get('b').send(backendRequest(`${origin.url}/upload`, { method: 'PUT', body: upload }));
  upload.write(chunk);
  // The rest is written only once the origin has seen data: a buffering client would wait forever.
  await firstChunkArrived.promise;
  expect(received).toBeLessThan(4 * chunk.length);
  for (let i = 0; i < 3; i++) upload.write(chunk);
  upload.end();

  const response = await pending;
  expect(await readAll(response.body)).toBe(`got ${4 * chunk.length} bytes, chunked`);
  await expect.poll(() => log.length).toBe(1);
  expect(log[0]).toMatchObject({ request: { bytes: 4 * chunk.length } });
});
