import { expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

test('sends the request and returns status, headers and body; hop-by-hop headers are dropped both ways', async () => {
  const origin = await startOrigin((req, res) => {
    res.setHeader('Set-Cookie', 'a=1');
    res.setHeader('Keep-Alive', 'timeout=5');
    res.setHeader('X-Drop-Me', 'named by Connection');
    res.setHeader('Connection', 'X-Drop-Me');
    res.writeHead(201, { 'Content-Type': 'text/plain' });
    res.end(`hello ${req.method} ${req.url}`);
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set } = backendsFor(config);

  const response = await set.get('b').send(
    backendRequest(`${origin.url}/things?x=1`, {
      headers: { 'x-custom': 'yes', te: 'trailers', 'keep-alive': '300', 'proxy-authorization': 'Basic c2VjcmV0', connection: 'x-secret-hop', 'x-secret-hop': 'no' },
    }),
  );

  expect(response.status).toBe(201);
  expect(await readAll(response.body)).toBe('hello GET /things?x=1');
  expect(response.headers['content-type']).toBe('text/plain');
  expect(response.headers['set-cookie']).toEqual(['a=1']);
  expect(response.headers).not.toHaveProperty('keep-alive');
  expect(response.headers).not.toHaveProperty('connection');
  expect(response.headers).not.toHaveProperty('x-drop-me');
  const seen = origin.requests[0]!.headers;
  expect(seen['x-custom']).toBe('yes');
  expect(seen).not.toHaveProperty('te');
  expect(seen).not.toHaveProperty('proxy-authorization');
  expect(seen).not.toHaveProperty('x-secret-hop');
});

test('an undefined backend name is a configuration error naming it', async () => {
  const config = await loadDefinitions(`backend "b" {\n origin = "http://127.0.0.1:1"\n}`);
  const { set } = backendsFor(config);
  expect(() => set.get('nope')).toThrow(/backend "nope" is not defined/);
});

test('a body nobody reads stops the backend (undici pauses), and every byte arrives once it is read', async () => {
  const CHUNK = Buffer.alloc(64 * 1024, 'x');
  const TOTAL_CHUNKS = 512; // 32 MiB, far beyond what loopback socket buffers hold
  let written = 0;
  const origin = await startOrigin((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const writeMore = (): void => {
      while (written < TOTAL_CHUNKS) {
        written += 1;
        if (!res.write(CHUNK)) {
          res.once('drain', writeMore);
          return;
        }
      }
      res.end();
    };
    writeMore();
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set } = backendsFor(config);

  const response = await set.get('b').send(backendRequest(`${origin.url}/big`));
  await new Promise((resolve) => setTimeout(resolve, 400));
  // Unread, the body holds the stream's buffer and the sockets' buffers hold some more: the backend waits.
  expect(written).toBeLessThan(TOTAL_CHUNKS / 2);
  let bytes = 0;
  for await (const chunk of response.body) bytes += (chunk as Buffer).length;
  expect(bytes).toBe(CHUNK.length * TOTAL_CHUNKS);
  expect(written).toBe(TOTAL_CHUNKS);
});
